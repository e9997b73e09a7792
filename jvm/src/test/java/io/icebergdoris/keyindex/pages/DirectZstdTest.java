package io.icebergdoris.keyindex.pages;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.Zstd;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.apache.iceberg.shaded.org.apache.parquet.bytes.BytesInput;
import org.apache.iceberg.shaded.org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The reader's codec factory: ZSTD pages decompressed in one call must give the bytes Parquet's own
 * compressor was given, a page whose size disagrees with its header must be refused, and other
 * codecs must work as Parquet's factory does.
 */
class DirectZstdTest {

  private final DirectZstd codecs = new DirectZstd();

  @AfterEach
  void release() {
    codecs.release();
  }

  private static byte[] page(int size, long seed) {
    // Half repetitive text, half random bytes: both of a compressor's paths.
    Random random = new Random(seed);
    byte[] bytes = new byte[size];
    byte[] text = "key-index entry page ".getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < size; i++) {
      bytes[i] = i < size / 2 ? text[i % text.length] : (byte) random.nextInt();
    }
    return bytes;
  }

  @Test
  void pagesParquetCompressedWithZstdComeBackWhole() throws IOException {
    CompressionCodecFactory.BytesInputCompressor parquet = codecs.getCompressor(CompressionCodecName.ZSTD);
    CompressionCodecFactory.BytesInputDecompressor direct = codecs.getDecompressor(CompressionCodecName.ZSTD);
    for (int size : new int[] {0, 1, 100, 65_536, 1_000_003}) {
      byte[] original = page(size, size);
      byte[] compressed = parquet.compress(BytesInput.from(original)).toByteArray();
      assertArrayEquals(original, direct.decompress(BytesInput.from(compressed), size).toByteArray(), "size " + size);
    }
  }

  @Test
  void pagesInsideLargerArraysAndOffHeapBuffersAreReadFromTheirStart() throws IOException {
    byte[] original = page(10_000, 3);
    byte[] compressed = Zstd.compress(original);
    CompressionCodecFactory.BytesInputDecompressor direct = codecs.getDecompressor(CompressionCodecName.ZSTD);

    // The page in the middle of a larger array (as a column chunk read at once holds its pages).
    byte[] chunk = new byte[compressed.length + 20];
    System.arraycopy(compressed, 0, chunk, 7, compressed.length);
    assertArrayEquals(original, direct.decompress(BytesInput.from(chunk, 7, compressed.length), original.length).toByteArray());

    ByteBuffer offHeap = ByteBuffer.allocateDirect(compressed.length);
    offHeap.put(compressed).flip();
    assertArrayEquals(original, direct.decompress(BytesInput.from(offHeap), original.length).toByteArray());
  }

  @Test
  void aPageOfAnotherSizeThanItsHeaderSaysIsRefused() {
    byte[] original = page(5_000, 5);
    byte[] compressed = Zstd.compress(original);
    CompressionCodecFactory.BytesInputDecompressor direct = codecs.getDecompressor(CompressionCodecName.ZSTD);

    IOException longer = assertThrows(IOException.class, () -> direct.decompress(BytesInput.from(compressed), 5_001));
    assertTrue(longer.getMessage().contains("decompressed to 5000 bytes, not the 5001"), longer::getMessage);
    IOException shorter = assertThrows(IOException.class, () -> direct.decompress(BytesInput.from(compressed), 4_999));
    assertTrue(shorter.getMessage().contains("4999"), shorter::getMessage);

    byte[] damaged = compressed.clone();
    damaged[damaged.length / 2] ^= 0x5a; // inside the compressed blocks
    damaged[0] ^= 0x01; // and the frame's magic number
    assertThrows(IOException.class, () -> direct.decompress(BytesInput.from(damaged), 5_000));
  }

  @Test
  void otherCodecsRoundTripThroughParquetsOwn() throws IOException {
    byte[] original = page(20_000, 9);
    for (CompressionCodecName codec : new CompressionCodecName[] {
        CompressionCodecName.SNAPPY, CompressionCodecName.GZIP, CompressionCodecName.UNCOMPRESSED}) {
      byte[] compressed = codecs.getCompressor(codec).compress(BytesInput.from(original)).toByteArray();
      byte[] back = codecs.getDecompressor(codec).decompress(BytesInput.from(compressed), original.length).toByteArray();
      assertArrayEquals(original, back, codec.name());
    }
  }

  @Test
  void readOptionsUseThisFactory() {
    assertInstanceOf(DirectZstd.class, DirectZstd.options().getCodecFactory());
  }
}
