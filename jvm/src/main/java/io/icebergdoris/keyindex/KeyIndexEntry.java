package io.icebergdoris.keyindex;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.spark.data.SparkParquetReaders;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.InternalRow;

/**
 * One data file's index entry: its keys sorted (encoded, or as plain longs on the fast path),
 * each with its row position in the file and, on tables with a sequence column, the row's
 * sequence value. Positions are physical: rows deleted since the file was written are included
 * (a probe drops them with the file's current deletes; their sequence values still count).
 */
final class KeyIndexEntry {
  final long[] longs; // the fast path: one integer-like key column; else null
  // Every other key: order-preserving encodings, held with each block's shared prefix once (a
  // cached 100M-row string index fits the budget where whole keys did not); else null.
  private final PrefixedKeys keys;
  private final int[] positions; // null: key i is row i (a load's own files are written in key order)
  final long[] sequences; // null without a sequence column
  final boolean[] nullSequences; // null without a sequence column

  /**
   * An entry of sorted keys: {@code longs}, or the encodings at {@code keyData[keyOffsets[i],
   * keyOffsets[i + 1])}; {@code positions[i]} is key i's row in the data file.
   */
  KeyIndexEntry(long[] longs, byte[] keyData, int[] keyOffsets, int[] positions, long[] sequences, boolean[] nullSequences) {
    if ((longs == null) == (keyData == null) || (keyData == null) != (keyOffsets == null)) {
      throw new IllegalArgumentException("an entry holds either long keys or encoded keys");
    }
    if (keyOffsets != null && keyOffsets.length != positions.length + 1) {
      throw new IllegalArgumentException("one offset per key and one past the last");
    }
    if (longs != null && longs.length != positions.length) {
      throw new IllegalArgumentException("one position per key");
    }
    this.longs = longs;
    this.keys = keyData == null ? null : PrefixedKeys.of(keyData, keyOffsets);
    this.positions = KeyIndexFiles.positionsInOrder(positions) ? null : positions;
    this.sequences = sequences;
    this.nullSequences = nullSequences;
  }

  int size() {
    return longs != null ? longs.length : keys.size();
  }

  /** The row in the data file of key {@code index}. */
  int position(int index) {
    return positions == null ? index : positions[index];
  }

  /** Every key's row, in key order (a new array). */
  int[] positionArray() {
    int[] rows = new int[size()];
    for (int i = 0; i < rows.length; i++) {
      rows[i] = position(i);
    }
    return rows;
  }

  /** The encoded keys back to back (a new array; see {@link #keyOffsets}). */
  byte[] keyData() {
    byte[] data = new byte[(int) keys.totalBytes()];
    for (int i = 0, at = 0; i < size(); i++) {
      at += keys.copy(i, data, at);
    }
    return data;
  }

  /** Where each encoded key starts in {@link #keyData}, and one past the last. */
  int[] keyOffsets() {
    int[] offsets = new int[size() + 1];
    for (int i = 0; i < size(); i++) {
      offsets[i + 1] = offsets[i] + keys.length(i);
    }
    return offsets;
  }

  /** Whether key i is row i for every key. */
  boolean positionsInOrder() {
    return positions == null;
  }

  boolean encoded() {
    return keys != null;
  }

  boolean hasSequences() {
    return sequences != null;
  }

  /**
   * The bytes of the keys and positions held (their arrays' contents). Sequence values are not
   * counted: the budget was set for keys, and counting them would push a 100M-row sequence table's
   * index past a 6 GiB heap's default budget (it fits the heap).
   */
  long bytesHeld() {
    return (keys != null ? keys.bytesHeld() : 8L * longs.length) + (positions != null ? 4L * positions.length : 0);
  }

  /** Memory held, roughly, for the executor cache's budget: {@link #bytesHeld} in units of 12 bytes. */
  long weight() {
    return Math.max(1, bytesHeld() / 12);
  }

  /** The key at {@code index} as its order-preserving encoding (8 bytes for an integer key). */
  byte[] keyBytes(int index) {
    return longs != null ? KeyCodec.longBytes(longs[index]) : keys.bytes(index);
  }

  /** The length of encoded key {@code index}. */
  int keyLength(int index) {
    return keys.length(index);
  }

  /** The encoded keys' bytes in total. */
  long keyBytesTotal() {
    return keys.totalBytes();
  }

  /** Copies encoded key {@code index} to {@code target} at {@code at}; returns its length. */
  int copyKey(int index, byte[] target, int at) {
    return keys.copy(index, target, at);
  }

  /**
   * Reads the key columns (and the sequence column, when {@code sequence} is given) of one data
   * file by Iceberg field id and sorts them; null if some key is NULL or the keys hold more bytes
   * than one array (the index cannot cover the file).
   */
  static KeyIndexEntry build(
      FileIO io, String location, KeyCodec codec, List<Types.NestedField> keys, Types.NestedField sequence, NameMapping names) {
    List<Types.NestedField> columns = new ArrayList<>(keys);
    if (sequence != null) {
      columns.add(sequence);
    }
    Schema projection = new Schema(columns);
    int keyCount = keys.size();
    boolean fast = codec.singleLong();
    long[] longs = fast ? new long[1 << 14] : null;
    List<byte[]> encoded = fast ? null : new ArrayList<>();
    long[] sequences = sequence != null ? new long[1 << 14] : null;
    boolean[] nullSequences = sequence != null ? new boolean[1 << 14] : null;
    KeyCodec.Kind sequenceKind = sequence != null ? KeyCodec.kind(sequence.type()) : null;
    int count = 0;
    Parquet.ReadBuilder read = Parquet.read(io.newInputFile(location))
        .project(projection)
        .createReaderFunc(fileSchema -> SparkParquetReaders.buildReader(projection, fileSchema))
        .reuseContainers();
    if (names != null) {
      read = read.withNameMapping(names); // files without field ids: by name, not by position
    }
    try (CloseableIterable<InternalRow> rows = read.build()) {
      for (InternalRow row : rows) {
        if (codec.anyNull(row)) {
          return null;
        }
        if (fast) {
          if (count == longs.length) {
            longs = Arrays.copyOf(longs, count * 2);
          }
          longs[count] = codec.internalLong(row, 0);
        } else {
          encoded.add(codec.encode(row));
        }
        if (sequences != null) {
          if (count == sequences.length) {
            sequences = Arrays.copyOf(sequences, count * 2);
            nullSequences = Arrays.copyOf(nullSequences, count * 2);
          }
          if (row.isNullAt(keyCount)) {
            nullSequences[count] = true;
          } else {
            sequences[count] = sequenceKind == KeyCodec.Kind.INT ? row.getInt(keyCount) : row.getLong(keyCount);
          }
        }
        count++;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return sorted(
        fast ? Arrays.copyOf(longs, count) : null,
        fast ? null : encoded.toArray(new byte[0][]),
        sequences != null ? Arrays.copyOf(sequences, count) : null,
        nullSequences != null ? Arrays.copyOf(nullSequences, count) : null);
  }

  /** An entry from keys in position order (position i is row i of the file). */
  static KeyIndexEntry sorted(long[] longs, byte[][] bytes, long[] sequences, boolean[] nullSequences) {
    int count = longs != null ? longs.length : bytes.length;
    int[] positions = new int[count];
    for (int i = 0; i < count; i++) {
      positions[i] = i;
    }
    byte[] keyData = null;
    int[] keyOffsets = null;
    if (longs != null) {
      boolean ordered = true;
      for (int i = 1; i < count && ordered; i++) {
        ordered = longs[i - 1] <= longs[i];
      }
      if (!ordered) {
        Sorting.sort(longs, positions);
      }
    } else {
      boolean ordered = true;
      for (int i = 1; i < count && ordered; i++) {
        ordered = Arrays.compareUnsigned(bytes[i - 1], bytes[i]) <= 0;
      }
      if (!ordered) { // a load's own files are written in key order: only other writers' files sort here
        positions = Sorting.sortedOrder(null, bytes, count); // stable: ties by position
      }
      long total = 0;
      for (byte[] key : bytes) {
        total += key.length;
      }
      if (total > Integer.MAX_VALUE - 16) {
        return null; // more key bytes than one array holds: the file is looked up by scanning
      }
      keyData = new byte[(int) total];
      keyOffsets = new int[count + 1];
      int at = 0;
      for (int i = 0; i < count; i++) {
        byte[] key = bytes[positions[i]];
        System.arraycopy(key, 0, keyData, at, key.length);
        at += key.length;
        keyOffsets[i + 1] = at;
      }
    }
    if (sequences == null) {
      return new KeyIndexEntry(longs, keyData, keyOffsets, positions, null, null);
    }
    long[] sortedSequences = new long[count];
    boolean[] sortedNulls = new boolean[count];
    for (int i = 0; i < count; i++) {
      sortedSequences[i] = sequences[positions[i]];
      sortedNulls[i] = nullSequences[positions[i]];
    }
    return new KeyIndexEntry(longs, keyData, keyOffsets, positions, sortedSequences, sortedNulls);
  }

  // ---- comparisons with a batch's keys (both sides use the same representation) ----

  /** Key {@code index} of this entry against key {@code otherIndex} of {@code other} (same layout). */
  int compare(int index, KeyIndexEntry other, int otherIndex) {
    return longs != null
        ? Long.compare(longs[index], other.longs[otherIndex])
        : keys.compare(index, other.keys, otherIndex);
  }

  int compare(int index, BatchKeys batch, int batchIndex) {
    return longs != null
        ? Long.compare(longs[index], batch.longs[batchIndex])
        : compareKey(index, batch.bytes()[batchIndex]);
  }

  /** Encoded key {@code index} against {@code key}. */
  int compareKey(int index, byte[] key) {
    return keys.compare(index, key);
  }

  /**
   * First entry index in [from, size) whose key is >= the batch's key {@code batchIndex}.
   *
   * <p>Galloping from {@code from}: a probe walks the batch's sorted keys and asks for each one's
   * bound after the last, which is usually a few entries on. Doubling steps find it in about
   * 2 log(gap) comparisons close to the last one, where a binary search over the rest of the
   * entry costs log(size) scattered ones (for encoded keys each a byte array elsewhere in memory).
   */
  int lowerBound(int from, BatchKeys batch, int batchIndex) {
    int size = size();
    int low = from;
    int step = 1;
    while (low < size && compare(low, batch, batchIndex) < 0) {
      int next = low + step;
      if (next >= size || compare(next, batch, batchIndex) >= 0) {
        return bisect(low + 1, Math.min(next, size), batch, batchIndex);
      }
      low = next + 1;
      step <<= 1;
    }
    return low;
  }

  /** First index in [low, high) whose key is >= the batch's key, or {@code high}. */
  private int bisect(int low, int high, BatchKeys batch, int batchIndex) {
    while (low < high) {
      int middle = (low + high) >>> 1;
      if (compare(middle, batch, batchIndex) < 0) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    return low;
  }
}
