package io.icebergdoris.keyindex;

import java.io.Serializable;

/** One new file's smallest and largest key (null: no entry) and whether a key repeats in it. */
final class FileKeys implements Serializable {
  private static final long serialVersionUID = 1L;
  final String location;
  final byte[] low;
  final byte[] high;
  final boolean repeats;
  final String unwritten; // why the entry could not be stored, or null

  FileKeys(String location, byte[] low, byte[] high, boolean repeats, String unwritten) {
    this.location = location;
    this.low = low;
    this.high = high;
    this.repeats = repeats;
    this.unwritten = unwritten;
  }
}
