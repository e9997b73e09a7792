package io.icebergdoris.iceberg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The entries built for the blobs of one Puffin file: each must name its own data file, carry that
 * file's spec and partition, and the offset, length and cardinality given for its blob.
 */
class DeletionVectorFilesTest {

  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.required(2, "region", Types.StringType.get()));

  private static Table table(Path folder) {
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).identity("region").build();
    return new HadoopTables(new Configuration())
        .create(SCHEMA, spec, Map.of(TableProperties.FORMAT_VERSION, "3"), folder.resolve("t").toString());
  }

  private static DataFile dataFile(Table table, String name, String region, long rows) {
    return DataFiles.builder(table.spec())
        .withPath(table.location() + "/data/" + name + ".parquet")
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(1000)
        .withRecordCount(rows)
        .withPartitionPath("region=" + region)
        .build();
  }

  @Test
  void eachEntryTakesItsTargetsLocationPartitionAndBlobPlacement(@TempDir Path folder) {
    Table table = table(folder);
    List<DataFile> targets = List.of(dataFile(table, "a", "eu", 10), dataFile(table, "b", "us", 20));
    String puffin = table.location() + "/data/d.puffin";
    // Only the second file gets a blob first: the index, not the line number, names the target.
    List<DeleteFile> entries = DeletionVectorFiles.of(table, targets, puffin, 500, "1 4 60 3\n0 64 40 2");

    assertEquals(2, entries.size());
    DeleteFile us = entries.get(0);
    assertEquals(FileContent.POSITION_DELETES, us.content());
    assertEquals(FileFormat.PUFFIN, us.format());
    assertEquals(puffin, us.location());
    assertEquals(500L, us.fileSizeInBytes());
    assertEquals(targets.get(1).location(), us.referencedDataFile());
    assertEquals("us", us.partition().get(0, String.class));
    assertEquals(table.spec().specId(), us.specId());
    assertEquals(4L, us.contentOffset());
    assertEquals(60L, us.contentSizeInBytes());
    assertEquals(3L, us.recordCount());
    DeleteFile eu = entries.get(1);
    assertEquals(targets.get(0).location(), eu.referencedDataFile());
    assertEquals("eu", eu.partition().get(0, String.class));
    assertEquals(64L, eu.contentOffset());
    assertEquals(2L, eu.recordCount());
  }

  @Test
  void noBlobsMakeNoEntries(@TempDir Path folder) {
    Table table = table(folder);
    assertEquals(List.of(), DeletionVectorFiles.of(table, List.of(), table.location() + "/d.puffin", 0, ""));
  }

  @Test
  void aMalformedBlobLineIsRefused(@TempDir Path folder) {
    Table table = table(folder);
    List<DataFile> targets = List.of(dataFile(table, "a", "eu", 10));
    assertThrows(
        IllegalArgumentException.class,
        () -> DeletionVectorFiles.of(table, targets, table.location() + "/d.puffin", 10, "0 4 60"));
  }

  @Test
  void recordCountsAreJoinedInOrder(@TempDir Path folder) {
    Table table = table(folder);
    List<DataFile> files = List.of(dataFile(table, "a", "eu", 10), dataFile(table, "b", "us", 20));
    assertEquals("10\n20", DeletionVectorFiles.recordCounts(files));
    assertEquals("", DeletionVectorFiles.recordCounts(List.of()));
  }
}
