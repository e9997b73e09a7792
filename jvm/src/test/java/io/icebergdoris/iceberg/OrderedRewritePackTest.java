package io.icebergdoris.iceberg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/**
 * How a row-order-keeping compaction groups old files into new ones: per partition, in the order
 * the files were added, until their estimated live bytes reach the target, never splitting a file;
 * and the identity partition values the rewrite reads files with.
 */
class OrderedRewritePackTest {

  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "p", Types.IntegerType.get()),
      Types.NestedField.optional(3, "s", Types.StringType.get()),
      Types.NestedField.optional(4, "d", Types.DateType.get()));
  private static final PartitionSpec BY_P = PartitionSpec.builderFor(SCHEMA).identity("p").build();

  private static OrderedRewrite.Source source(String name, int partition, long bytes, long rows, long... deletedRows) {
    DataFile file = DataFiles.builder(BY_P)
        .withPath("/t/data/" + name).withFormat(FileFormat.PARQUET).withFileSizeInBytes(bytes).withRecordCount(rows)
        .withPartitionPath("p=" + partition).build();
    List<DeleteFile> deletes = new ArrayList<>();
    for (int i = 0; i < deletedRows.length; i++) {
      deletes.add(FileMetadata.deleteFileBuilder(BY_P).ofPositionDeletes()
          .withPath("/t/data/" + name + "-deletes-" + i).withFormat(FileFormat.PARQUET).withFileSizeInBytes(10)
          .withRecordCount(deletedRows[i]).withPartitionPath("p=" + partition).build());
    }
    return new OrderedRewrite.Source(file, deletes);
  }

  private static List<List<String>> groups(long target, OrderedRewrite.Source... sources) {
    List<List<String>> names = new ArrayList<>();
    for (OrderedRewrite.Group group : OrderedRewrite.pack(List.of(sources), target)) {
      List<String> files = new ArrayList<>();
      group.sources.forEach(s -> files.add(s.location.substring(s.location.lastIndexOf('/') + 1)));
      names.add(files);
    }
    return names;
  }

  @Test
  void consecutiveFilesFillGroupsUpToTheTarget() {
    // 40 + 40 fit in 100, a third 40 would not; 40 + 90 would not; 90 + 10 reach it exactly.
    assertEquals(List.of(List.of("a", "b"), List.of("c"), List.of("d", "e")),
        groups(100, source("a", 1, 40, 4), source("b", 1, 40, 4), source("c", 1, 40, 4), source("d", 1, 90, 9), source("e", 1, 10, 1)));
  }

  @Test
  void aFileLargerThanTheTargetIsNeverSplit() {
    assertEquals(List.of(List.of("small"), List.of("big"), List.of("tail")),
        groups(100, source("small", 1, 60, 6), source("big", 1, 500, 50), source("tail", 1, 10, 1)));
  }

  @Test
  void partitionsAreGroupedApartInTheOrderFirstSeen() {
    assertEquals(List.of(List.of("a", "c"), List.of("b")),
        groups(1000, source("a", 2, 10, 1), source("b", 1, 10, 1), source("c", 2, 10, 1)));
  }

  @Test
  void deletedRowsShrinkTheEstimate() {
    // Half of each file deleted: 50 live bytes each, two fit in 100.
    assertEquals(List.of(List.of("a", "b")), groups(100, source("a", 1, 100, 10, 3, 2), source("b", 1, 100, 10, 5)));
    assertEquals(List.of(List.of("a"), List.of("b")), groups(100, source("a", 1, 100, 10), source("b", 1, 100, 10)));
  }

  @Test
  void filesWithNoLiveRowsJoinTheNextGroup() {
    // Fully deleted (more deletes than rows even) or empty: nothing to copy, so no group of their own.
    assertEquals(List.of(List.of("gone", "empty", "a"), List.of("b")),
        groups(100, source("gone", 1, 100, 10, 10, 5), source("empty", 1, 100, 0), source("a", 1, 90, 9), source("b", 1, 90, 9)));
  }

  @Test
  void identityPartitionValuesAreTheReadersConstantsAsTheColumnIsTypedNow() {
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).identity("p").identity("s").identity("d").bucket("id", 4).build();
    DataFile file = DataFiles.builder(spec).withPath("/t/f").withFormat(FileFormat.PARQUET).withFileSizeInBytes(1).withRecordCount(1)
        .withPartitionPath("p=7/s=x/d=2024-02-29/id_bucket=3").build();
    // p was promoted from int to long since the file was written.
    Schema now = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "p", Types.LongType.get()),
        Types.NestedField.optional(3, "s", Types.StringType.get()),
        Types.NestedField.optional(4, "d", Types.DateType.get()));
    Map<Integer, ?> constants = OrderedRewrite.identityConstants(now, spec, file.partition());
    assertEquals(Map.of(2, 7L, 3, UTF8String.fromString("x"), 4, (int) java.time.LocalDate.of(2024, 2, 29).toEpochDay()), constants);

    // A column dropped from the table since has no constant; a bucket is no column's value.
    Schema dropped = new Schema(now.findField("id"), now.findField("p"));
    Map<Integer, ?> fewer = OrderedRewrite.identityConstants(dropped, spec, file.partition());
    assertEquals(Map.of(2, 7L), fewer);
    assertFalse(fewer.containsKey(1));
  }
}
