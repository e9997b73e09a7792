package io.icebergdoris.keyindex;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.util.Arrays;
import java.util.Map;
import java.util.function.BiFunction;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.parquet.ParquetValueWriter;
import org.apache.iceberg.shaded.org.apache.parquet.column.ParquetProperties;
import org.apache.iceberg.shaded.org.apache.parquet.column.values.factory.DefaultValuesWriterFactory;
import org.apache.iceberg.shaded.org.apache.parquet.crypto.FileEncryptionProperties;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.iceberg.shaded.org.apache.parquet.schema.MessageType;
import org.apache.iceberg.spark.data.SparkParquetWriters;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;

/**
 * Iceberg's Parquet writer for key-index entries, with Parquet properties of their own.
 *
 * <p>Parquet (1.16, shaded in Iceberg's runtime) gives every {@code ParquetProperties} one shared
 * {@code DefaultValuesWriterFactory} unless told otherwise, and each new writer re-points it at the
 * v1 or v2 encoders of its own writer version (parquet-java GH-3224). Entries are written as
 * Parquet v2 (delta encodings) and table data files as v1, in the same JVM and at the same time (a
 * lookup building entries while the load writes its rows): a data file then got v2 encoders
 * (DELTA_BYTE_ARRAY strings in v1 pages), which Iceberg's vectorized reader refuses. Iceberg's
 * write builder builds its properties itself, so the entries go through its writer's constructor,
 * package-private, with properties holding a factory of their own: no data writer ever sees it.
 */
final class EntryParquetWriter {
  private static final long ROW_GROUP_BYTES = 128L * 1024 * 1024;
  // Looked up on first use, not in a static initializer: a runtime without it then fails each
  // entry write with an exception (a warning, the entry unwritten), not the class with an Error.
  private static volatile Constructor<?> writer;

  private EntryParquetWriter() {}

  /**
   * A writer of Spark rows of {@code sparkSchema} ({@code schema} as Iceberg's) to {@code file},
   * overwriting it: Parquet v2, snappy, no dictionary, no statistics on {@code unstatisticked},
   * with {@code metadata} in the footer.
   */
  @SuppressWarnings("unchecked")
  static FileAppender<InternalRow> open(
      OutputFile file, Schema schema, StructType sparkSchema, Map<String, String> metadata, String unstatisticked)
      throws IOException {
    MessageType type = ParquetSchemaUtil.convert(schema, "table");
    ParquetProperties properties =
        ParquetProperties.builder()
            .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_2_0)
            .withValuesWriterFactory(new DefaultValuesWriterFactory())
            .withPageSize(1024 * 1024)
            .withPageRowCountLimit(20_000)
            .withDictionaryEncoding(false)
            .withStatisticsEnabled(unstatisticked, false)
            .build();
    BiFunction<Schema, MessageType, ParquetValueWriter<?>> rows = (ignored, parquetType) -> SparkParquetWriters.buildWriter(sparkSchema, parquetType);
    try {
      // Without Hadoop's default resources: parsing them again for each entry showed in profiles,
      // and nothing an entry's writer reads is set there.
      Constructor<?> constructor = writerConstructor();
      Object[] arguments = {
        new Configuration(false), file, schema, type, ROW_GROUP_BYTES, metadata, rows, CompressionCodecName.SNAPPY,
        properties, MetricsConfig.getDefault(), ParquetFileWriter.Mode.OVERWRITE, null, false
      };
      // Iceberg 1.12 added a last argument (track row groups' uncompressed size; false, its default).
      return (FileAppender<InternalRow>) constructor.newInstance(
          Arrays.copyOf(arguments, constructor.getParameterCount()));
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException) {
        throw (IOException) cause;
      }
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      throw new IllegalStateException("could not open the key-index entry writer", cause);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("could not open the key-index entry writer", e);
    }
  }

  private static Constructor<?> writerConstructor() {
    Constructor<?> known = writer;
    if (known != null) {
      return known;
    }
    Class<?>[] parameters = {
      Configuration.class, OutputFile.class, Schema.class, MessageType.class, long.class, Map.class, BiFunction.class,
      CompressionCodecName.class, ParquetProperties.class, MetricsConfig.class, ParquetFileWriter.Mode.class,
      FileEncryptionProperties.class, boolean.class
    };
    try {
      Class<?> parquetWriter = Class.forName("org.apache.iceberg.parquet.ParquetWriter");
      Constructor<?> constructor;
      try {
        constructor = parquetWriter.getDeclaredConstructor(parameters); // Iceberg 1.12
      } catch (NoSuchMethodException e) {
        constructor = parquetWriter.getDeclaredConstructor(Arrays.copyOf(parameters, parameters.length - 1));
      }
      constructor.setAccessible(true);
      writer = constructor;
      return constructor;
    } catch (ReflectiveOperationException e) {
      // This Iceberg runtime's writer takes other arguments than Iceberg 1.10 to 1.12's.
      throw new IllegalStateException(
          "Iceberg's Parquet writer is not one this bridge knows (Iceberg 1.10 to 1.12): key-index entries cannot be written", e);
    }
  }
}
