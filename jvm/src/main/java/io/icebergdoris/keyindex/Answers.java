package io.icebergdoris.keyindex;

import java.util.List;

/**
 * What the index answers Python, one record per answer: {@link Wire#json} writes each with its
 * components' names in snake case, the fields of the dataclass of the same name in
 * {@code iceberg_doris/engine/key_index/wire.py}. A component added here is a field added there.
 */
final class Answers {
  private Answers() {}

  /**
   * One data file's live positions of the batch's keys: of keys the batch upserts, of keys it
   * deletes, each the base64 text of a portable 64-bit Roaring bitmap.
   */
  record FilePositions(String location, String upserts, String deletes) {
    static FilePositions of(String location, byte[] upserts, byte[] deletes) {
      return new FilePositions(location, Wire.base64(upserts), Wire.base64(deletes));
    }
  }

  /**
   * What one lookup found ({@link Lookup#answer()}): entries built from their data file, read
   * from their stored file (the rest came from executor caches); files the index cannot cover (a
   * NULL key); stored entries rejected or not written, one text each; whether no batch key has two
   * live rows among the probed files; the hits per probed file holding some key, in probe order.
   */
  record LookupAnswer(
      int probedFiles, int builtFiles, int readFiles, List<String> unindexable, List<String> problems,
      boolean oneLiveRowPerKey, List<FilePositions> hits) {}

  /**
   * Which stored rows a sequence table's winning versions replace ({@link SequenceDecision}):
   * per file, positions of upserted and of deleted keys; the live rows winning deletes remove;
   * whether a tombstone is written.
   */
  record SequenceAnswer(List<FilePositions> replaced, long deletedRows, boolean anyDeleteWins) {}

  /**
   * A batch's collected keys, described ({@link KeyIndex#describeBatch}): their count, whether a
   * key occurs twice, the first key column's [smallest, largest] ([] for no keys) and its values in
   * key order (null for batches over the asked number of keys).
   */
  record BatchSummary(long count, boolean hasDuplicates, List<Object> firstColumnRange, List<Object> firstColumnValues) {}

  /** A load's new files indexed ({@link KeyIndex#awaitIndexing}): the entries not stored, one text each. */
  record IndexingAnswer(List<String> problems) {}

  /**
   * Whether a key occurs more than once among a load's new files ({@link NewFiles#newFilesRepeatKeys}):
   * {@code distinct}, {@code repeats} or {@code unknown}, and the entries not stored.
   */
  record RepeatsAnswer(String verdict, List<String> problems) {}
}
