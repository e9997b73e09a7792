package io.icebergdoris.keyindex.pages;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdException;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.shaded.org.apache.parquet.ParquetReadOptions;
import org.apache.iceberg.shaded.org.apache.parquet.bytes.BytesInput;
import org.apache.iceberg.shaded.org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.iceberg.shaded.org.apache.parquet.conf.HadoopParquetConfiguration;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Parquet read options whose ZSTD pages are decompressed in one call into an array (zstd-jni,
 * which Spark ships), other codecs as Parquet does. Parquet's own ZSTD codec streams each page
 * through Hadoop's decompressor stream and its buffers: on the 5M-row files of a 10M-row table,
 * a quarter of the time taken to decompress a hit read's columns.
 */
public final class DirectZstd implements CompressionCodecFactory {
  // Parquet's default options make a Hadoop Configuration of their own, which parses Hadoop's XML
  // resources on first use: a fifth of reading a hit file's two columns by position. One
  // configuration, parsed once per JVM and only read, serves every reader.
  private static final Configuration HADOOP = loaded();

  private final CompressionCodecFactory others = builder().build().getCodecFactory();

  private static Configuration loaded() {
    Configuration conf = new Configuration();
    conf.size(); // parses the resources now, not in a reader
    return conf;
  }

  private static ParquetReadOptions.Builder builder() {
    return ParquetReadOptions.builder(new HadoopParquetConfiguration(HADOOP));
  }

  /** Read options for one reader: ZSTD pages in one call, other codecs as Parquet's own factory. */
  public static ParquetReadOptions options() {
    return builder().withCodecFactory(new DirectZstd()).build();
  }

  @Override
  public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
    if (codec != CompressionCodecName.ZSTD) {
      return others.getDecompressor(codec);
    }
    return new BytesInputDecompressor() {
      @Override
      public BytesInput decompress(BytesInput compressed, int size) throws IOException {
        PageBytes source = PageBytes.of(compressed.toByteBuffer());
        byte[] target = new byte[size];
        long written;
        try {
          written = Zstd.decompressByteArray(target, 0, size, source.bytes, source.from, source.limit - source.from);
        } catch (ZstdException e) { // zstd-jni 1.5 throws where older versions returned an error code
          throw new IOException("a ZSTD page did not decompress to the " + size + " bytes its header says: " + e.getMessage(), e);
        }
        if (Zstd.isError(written) || written != size) {
          throw new IOException("a ZSTD page decompressed to " + (Zstd.isError(written) ? Zstd.getErrorName(written) : written + " bytes")
              + ", not the " + size + " its header says");
        }
        return BytesInput.from(target);
      }

      @Override
      public void decompress(ByteBuffer input, int compressedSize, ByteBuffer output, int decompressedSize) throws IOException {
        others.getDecompressor(codec).decompress(input, compressedSize, output, decompressedSize);
      }

      @Override
      public void release() {}
    };
  }

  @Override
  public BytesInputCompressor getCompressor(CompressionCodecName codec) {
    return others.getCompressor(codec);
  }

  @Override
  public void release() {
    others.release();
  }
}
