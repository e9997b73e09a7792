package io.icebergdoris.keyindex;

import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/** Which versions of a sequence table's batch win ({@link Lookup#decideBySequence}). */
final class SequenceDecision {
  private final List<Answers.FilePositions> replaced;
  private final long deletedRows;
  private final boolean anyDeleteWins;
  private final Dataset<Row> losingKeys;

  SequenceDecision(List<Answers.FilePositions> replaced, long deletedRows, boolean anyDeleteWins, Dataset<Row> losingKeys) {
    this.replaced = replaced;
    this.deletedRows = deletedRows;
    this.anyDeleteWins = anyDeleteWins;
    this.losingKeys = losingKeys;
  }

  /**
   * For Python ({@code wire.SequenceAnswer}): {@code replaced}, per file with live rows the winners
   * replace, as {@link Lookup#answer()}'s hits (upserted, then deleted positions);
   * {@code deleted_rows}, the live rows winning deletes remove; {@code any_delete_wins}, whether a
   * tombstone is written.
   */
  Answers.SequenceAnswer answer() {
    return new Answers.SequenceAnswer(replaced, deletedRows, anyDeleteWins);
  }

  /** The keys whose batch version loses (key columns), or null when every version wins. */
  Dataset<Row> losingKeys() {
    return losingKeys;
  }
}
