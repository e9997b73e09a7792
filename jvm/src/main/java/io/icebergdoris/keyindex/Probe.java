package io.icebergdoris.keyindex;

import java.util.Arrays;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.spark.api.java.function.Function;
import org.apache.spark.broadcast.Broadcast;
import org.roaringbitmap.RoaringBitmap;

final class Probe implements Function<FileToProbe, FileHits> {
  private static final long serialVersionUID = 3L;
  private final Broadcast<Table> table;
  private final Broadcast<BatchKeys> batch;
  private final Layout layout;
  private final long maxRows;
  private final boolean keysPerHit;

  Probe(Broadcast<Table> table, Broadcast<BatchKeys> batch, Layout layout, long maxRows, boolean keysPerHit) {
    this.table = table;
    this.batch = batch;
    this.layout = layout;
    this.maxRows = maxRows;
    this.keysPerHit = keysPerHit;
  }

  @Override
  public FileHits call(FileToProbe file) {
    Table files = table.value();
    EntryCache.Found found = EntryCache.entryFor(files, file, layout, maxRows);
    if (found.entry == null) {
      return new FileHits(file.location, false, EntrySource.BUILT, found.rejected, null, new Positions(), new Positions(),
          new int[0], new long[0], new int[0], new long[0], new RoaringBitmap(), false);
    }
    PositionDeleteIndex deleted = null;
    if (!file.deletes.isEmpty()) {
      // The file's DV (or position delete files): the index holds physical rows, hits must be live.
      deleted = new BaseDeleteLoader(delete -> files.io().newInputFile(delete)).loadPositionDeletes(file.deletes, file.location);
    }
    return probe(file.location, found.entry, batch.value(), found.source, found.rejected, found.unwritten, deleted, keysPerHit);
  }


  static FileHits probe(
      String location, KeyIndexEntry entry, BatchKeys batch, EntrySource source, String rejected, String unwritten,
      PositionDeleteIndex deleted, boolean keysPerHit) {
    Positions upserts = new Positions();
    Positions deletes = new Positions();
    boolean sequence = batch.sequences != null && entry.hasSequences();
    IntList storedKeys = new IntList();
    LongList storedSequences = new LongList();
    IntList liveKeys = new IntList();
    LongList livePositions = new LongList();
    RoaringBitmap liveKeySet = new RoaringBitmap();
    boolean repeatsLiveKey = false;
    int size = entry.size();
    if (size > 0) {
      // Only the batch keys inside this file's [min, max]; for each, every equal key of the file.
      int from = batchLowerBound(batch, 0, entry, 0);
      int start = 0;
      for (int i = from; i < batch.count(); i++) {
        if (entry.compare(size - 1, batch, i) < 0) {
          break; // past the file's largest key
        }
        start = entry.lowerBound(start, batch, i);
        boolean anySequence = false;
        long largest = Long.MIN_VALUE;
        int liveRows = 0;
        for (int j = start; j < size && entry.compare(j, batch, i) == 0; j++) {
          int position = entry.position(j);
          boolean live = deleted == null || !deleted.isDeleted(position);
          liveRows += live ? 1 : 0;
          if (sequence) {
            if (!entry.nullSequences[j]) {
              largest = anySequence ? Math.max(largest, entry.sequences[j]) : entry.sequences[j];
              anySequence = true;
            }
            if (live) {
              liveKeys.add(i);
              livePositions.add(position);
            }
          } else if (live) {
            (batch.deletes[i] == 1 ? deletes : upserts).add(position);
            if (keysPerHit) {
              liveKeys.add(i);
              livePositions.add(position);
            }
          }
        }
        if (anySequence) {
          storedKeys.add(i);
          storedSequences.add(largest);
        }
        if (liveRows > 0) {
          liveKeySet.add(i);
          repeatsLiveKey |= liveRows > 1;
        }
      }
    }
    liveKeySet.runOptimize();
    return new FileHits(location, true, source, rejected, unwritten, upserts, deletes,
        storedKeys.toArray(), storedSequences.toArray(), liveKeys.toArray(), livePositions.toArray(), liveKeySet, repeatsLiveKey);
  }

  /** First batch index in [from, count) whose key is >= the entry's key {@code index}. */
  static int batchLowerBound(BatchKeys batch, int from, KeyIndexEntry entry, int index) {
    int low = from;
    int high = batch.count();
    while (low < high) {
      int middle = (low + high) >>> 1;
      if (entry.compare(index, batch, middle) > 0) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    return low;
  }

  static final class IntList {
    private int[] values = new int[8];
    private int size;

    void add(int value) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = value;
    }

    int[] toArray() {
      return Arrays.copyOf(values, size);
    }
  }

  static final class LongList {
    private long[] values = new long[8];
    private int size;

    void add(long value) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = value;
    }

    long[] toArray() {
      return Arrays.copyOf(values, size);
    }
  }
}
