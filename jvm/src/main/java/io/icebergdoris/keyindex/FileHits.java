package io.icebergdoris.keyindex;

import java.io.Serializable;
import org.roaringbitmap.RoaringBitmap;

/** What probing one data file found. */
public final class FileHits implements Serializable {
  private static final long serialVersionUID = 3L;
  final String location;
  final boolean indexable; // false: a NULL key in the file (written by another engine)
  final EntrySource source;
  final String rejected; // why a stored entry was not used (corrupt, unreadable), or null
  final String unwritten; // why a built entry could not be stored, or null
  final long hitCount; // positions found (a position may count twice: only whether any is used)
  final byte[] upserts; // live positions of keys the batch upserts (portable 64-bit Roaring)
  final byte[] deletes; // live positions of keys the batch deletes (portable 64-bit Roaring)
  // Tables with a sequence column: per batch key found in the file, the largest stored sequence
  // value over every physical row (deleted ones too). The live rows of each batch key: on
  // sequence tables, and on others when the probe was asked to keep each hit's key.
  final int[] storedKeys;
  final long[] storedSequences;
  final int[] liveKeys;
  final long[] livePositions;
  // The batch keys with a live row here, and whether one has several: a load that merges with
  // the stored rows skips grouping them per key when no key has two live rows in the table.
  final RoaringBitmap liveKeySet;
  final boolean repeatsLiveKey;

  FileHits(String location, boolean indexable, EntrySource source, String rejected, String unwritten, Positions upserts, Positions deletes,
      int[] storedKeys, long[] storedSequences, int[] liveKeys, long[] livePositions, RoaringBitmap liveKeySet,
      boolean repeatsLiveKey) {
    this.location = location;
    this.indexable = indexable;
    this.source = source;
    this.rejected = rejected;
    this.unwritten = unwritten;
    this.upserts = upserts.portableRoaring();
    this.deletes = deletes.portableRoaring();
    this.storedKeys = storedKeys;
    this.storedSequences = storedSequences;
    this.liveKeys = liveKeys;
    this.livePositions = livePositions;
    this.liveKeySet = liveKeySet;
    this.repeatsLiveKey = repeatsLiveKey;
    this.hitCount = upserts.count() + deletes.count() + storedKeys.length + liveKeys.length;
  }
}
