package io.icebergdoris.iceberg;

import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/** Walks a table's snapshots in the JVM (one py4j call instead of several per snapshot). */
public final class SnapshotHistory {

  private SnapshotHistory() {}

  /** The id of a snapshot (of any ref) whose summary has {@code key = value}, else -1. */
  public static long findBySummary(Table table, String key, String value) {
    for (Snapshot snapshot : table.snapshots()) {
      if (snapshot.summary() != null && value.equals(snapshot.summary().get(key))) {
        return snapshot.snapshotId();
      }
    }
    return -1L;
  }

  /** When the snapshot with this sequence number was committed (epoch ms), else -1. */
  public static long committedAtMillis(Table table, long sequenceNumber) {
    for (Snapshot snapshot : table.snapshots()) {
      if (snapshot.sequenceNumber() == sequenceNumber) {
        return snapshot.timestampMillis();
      }
    }
    return -1L;
  }
}
