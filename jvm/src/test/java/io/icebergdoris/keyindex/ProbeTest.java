package io.icebergdoris.keyindex;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import org.apache.iceberg.deletes.Deletes;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

/**
 * Probing one data file's entry with a batch's keys, checked against a brute-force reference over
 * the same rows: which live positions the batch upserts or deletes, which batch keys have live
 * rows (and whether one has several), and on sequence tables the largest stored sequence value per
 * key, deleted rows included. Deleted positions are Iceberg's own position-delete index.
 */
class ProbeTest {

  private static final Random RANDOM = new Random(99);

  /** One file's rows: a key (an index into a small key space), a sequence value or NULL. */
  private record Rows(int[] keys, long[] sequences, boolean[] nullSequences) {}

  private static byte[] encodedKey(int key) {
    // Keys of differing lengths whose unsigned order is their numeric order: a number, then a string.
    KeyBytes out = new KeyBytes(8);
    KeyCodec.writeLong(out, key);
    KeyCodec.writeString(out, "ab".substring(0, key % 3).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    return out.toByteArray();
  }

  @Test
  void probesMatchABruteForceReference() throws IOException {
    for (int round = 0; round < 300; round++) {
      boolean encoded = round % 2 == 1;
      boolean sequence = round % 4 >= 2;
      boolean keysPerHit = RANDOM.nextBoolean();
      int space = 1 + RANDOM.nextInt(60);

      int size = RANDOM.nextInt(80);
      Rows rows = new Rows(new int[size], new long[size], new boolean[size]);
      for (int i = 0; i < size; i++) {
        rows.keys[i] = RANDOM.nextInt(space); // repeats: a key may have several rows
        rows.nullSequences[i] = RANDOM.nextInt(4) == 0;
        rows.sequences[i] = rows.nullSequences[i] ? 0 : RANDOM.nextInt(20) - 10;
      }
      KeyIndexEntry entry = encoded
          ? KeyIndexEntry.sorted(null, Arrays.stream(rows.keys).mapToObj(ProbeTest::encodedKey).toArray(byte[][]::new),
              sequence ? rows.sequences : null, sequence ? rows.nullSequences : null)
          : KeyIndexEntry.sorted(Arrays.stream(rows.keys).asLongStream().toArray(), null,
              sequence ? rows.sequences : null, sequence ? rows.nullSequences : null);

      int[] batchKeys = new TreeSet<>(RANDOM.ints(RANDOM.nextInt(40), 0, space + 2).boxed().toList())
          .stream().mapToInt(Integer::intValue).toArray(); // sorted, distinct, some beyond the file's keys
      int[] deleteFlags = RANDOM.ints(batchKeys.length, 0, 2).toArray();
      long[] batchSequences = sequence ? new long[batchKeys.length] : null;
      BatchKeys batch = new BatchKeys(
          encoded ? null : Arrays.stream(batchKeys).asLongStream().toArray(),
          encoded ? Arrays.stream(batchKeys).mapToObj(ProbeTest::encodedKey).toArray(byte[][]::new) : null,
          deleteFlags, batchSequences, sequence ? new boolean[batchKeys.length] : null, null, null, null);

      List<Long> deletedPositions = new ArrayList<>();
      for (long position = 0; position < size; position++) {
        if (RANDOM.nextInt(4) == 0) {
          deletedPositions.add(position);
        }
      }
      PositionDeleteIndex deleted = RANDOM.nextInt(5) == 0 ? null : Deletes.toPositionIndex(CloseableIterable.withNoopClose(deletedPositions));
      List<Long> deletedOnes = deleted == null ? List.of() : deletedPositions;

      FileHits hits = Probe.probe("file", entry, batch, EntrySource.CACHED, null, null, deleted, keysPerHit);

      // The reference: every row against every batch key.
      Map<Integer, Integer> batchIndex = new HashMap<>();
      for (int b = 0; b < batchKeys.length; b++) {
        batchIndex.put(batchKeys[b], b);
      }
      TreeSet<Long> upserts = new TreeSet<>();
      TreeSet<Long> deletes = new TreeSet<>();
      TreeSet<String> live = new TreeSet<>(); // "batch index:position"
      Map<Integer, Long> largest = new HashMap<>();
      int[] liveRowsPerKey = new int[batchKeys.length];
      for (int row = 0; row < size; row++) {
        Integer b = batchIndex.get(rows.keys[row]);
        if (b == null) {
          continue;
        }
        boolean isLive = !deletedOnes.contains((long) row);
        if (sequence && !rows.nullSequences[row]) {
          largest.merge(b, rows.sequences[row], Math::max); // deleted rows' values count too
        }
        if (!isLive) {
          continue;
        }
        liveRowsPerKey[b]++;
        if (sequence || keysPerHit) {
          live.add(b + ":" + row);
        }
        if (!sequence) {
          (deleteFlags[b] == 1 ? deletes : upserts).add((long) row);
        }
      }

      String what = "round " + round + (encoded ? " encoded" : " long") + (sequence ? " sequence" : "");
      assertEquals(upserts, positions(hits.upserts), what + ": upserted positions");
      assertEquals(deletes, positions(hits.deletes), what + ": deleted positions");
      TreeSet<String> foundLive = new TreeSet<>();
      for (int i = 0; i < hits.liveKeys.length; i++) {
        foundLive.add(hits.liveKeys[i] + ":" + hits.livePositions[i]);
      }
      assertEquals(live, foundLive, what + ": live rows per key");
      assertEquals(hits.liveKeys.length, foundLive.size(), what + ": each live row once");

      Map<Integer, Long> foundLargest = new HashMap<>();
      for (int i = 0; i < hits.storedKeys.length; i++) {
        foundLargest.put(hits.storedKeys[i], hits.storedSequences[i]);
      }
      assertEquals(largest, foundLargest, what + ": largest stored sequence value per key");

      int[] liveKeySet = Arrays.stream(hits.liveKeySet.toArray()).toArray();
      int[] expectedKeySet = java.util.stream.IntStream.range(0, batchKeys.length).filter(b -> liveRowsPerKey[b] > 0).toArray();
      assertArrayEquals(expectedKeySet, liveKeySet, what + ": batch keys with a live row");
      assertEquals(Arrays.stream(liveRowsPerKey).anyMatch(n -> n > 1), hits.repeatsLiveKey, what + ": a key with two live rows");
    }
  }

  private static TreeSet<Long> positions(byte[] portableRoaring) throws IOException {
    Roaring64NavigableMap bitmap = new Roaring64NavigableMap();
    bitmap.deserializePortable(new DataInputStream(new ByteArrayInputStream(portableRoaring)));
    TreeSet<Long> positions = new TreeSet<>();
    bitmap.forEach(positions::add);
    return positions;
  }
}
