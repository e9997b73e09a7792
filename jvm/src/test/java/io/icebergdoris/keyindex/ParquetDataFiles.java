package io.icebergdoris.keyindex;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Files;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.iceberg.spark.data.SparkParquetReaders;
import org.apache.iceberg.spark.data.SparkParquetWriters;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;

/** Table data files for tests, written and read by Iceberg's own Parquet writer and reader. */
final class ParquetDataFiles {
  private ParquetDataFiles() {}

  /** Writes {@code rows} (Spark internal values of {@code schema}) with the table properties {@code properties}. */
  static void write(File file, Schema schema, List<InternalRow> rows, Map<String, String> properties) throws IOException {
    StructType sparkType = SparkSchemaUtil.convert(schema);
    file.delete();
    try (FileAppender<InternalRow> out = Parquet.write(Files.localOutput(file))
        .schema(schema)
        .setAll(properties)
        .createWriterFunc(type -> SparkParquetWriters.buildWriter(sparkType, type))
        .build()) {
      for (InternalRow row : rows) {
        out.add(row);
      }
    }
  }

  /** Every row of {@code file} projected on {@code projection}, as Iceberg's row reader reads them. */
  static List<InternalRow> readAll(File file, Schema projection) throws IOException {
    List<InternalRow> rows = new ArrayList<>();
    try (CloseableIterable<InternalRow> read = Parquet.read(Files.localInput(file))
        .project(projection)
        .createReaderFunc(fileSchema -> SparkParquetReaders.buildReader(projection, fileSchema))
        .build()) {
      for (InternalRow row : read) {
        rows.add(row.copy());
      }
    }
    return rows;
  }
}
