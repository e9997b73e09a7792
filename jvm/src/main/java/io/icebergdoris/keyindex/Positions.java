package io.icebergdoris.keyindex;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

final class Positions {
  // Roaring: the positions travel to the driver and on to Python several times smaller than
  // as plain longs, and py4j moves bytes slowly.
  private final Roaring64NavigableMap values = new Roaring64NavigableMap();

  long count() {
    return values.getLongCardinality();
  }

  void add(long position) {
    values.addLong(position);
  }

  byte[] portableRoaring() {
    values.runOptimize();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      values.serializePortable(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }
}
