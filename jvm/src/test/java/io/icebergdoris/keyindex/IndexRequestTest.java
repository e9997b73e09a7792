package io.icebergdoris.keyindex;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The request Python sends (wire.IndexRequest) is parsed strictly: every field, of its type, none unknown. */
class IndexRequestTest {

  @Test
  void aRequestReadsAsPythonWritesIt() {
    IndexRequest request = IndexRequest.fromJson(
        "{\"key_columns\": [\"k1\", \"k\\n2\"], \"sequence_column\": null, \"max_rows\": 50000000, \"persist\": true, \"keys_per_hit\": false}");
    assertEquals(List.of("k1", "k\n2"), request.keyColumns());
    assertNull(request.sequenceColumn());
    assertEquals(50_000_000L, request.maxRows());
    assertTrue(request.persist());
    assertFalse(request.keysPerHit());
    IndexRequest sequenced = IndexRequest.fromJson(
        "{\"key_columns\": [\"k\"], \"sequence_column\": \"seq\", \"max_rows\": 0, \"persist\": false, \"keys_per_hit\": true}");
    assertEquals("seq", sequenced.sequenceColumn());
    assertTrue(sequenced.keysPerHit());
  }

  @Test
  void aNullBudgetIsLeftToEachExecutorsHeap() {
    IndexRequest request = IndexRequest.fromJson(
        "{\"key_columns\": [\"k\"], \"sequence_column\": null, \"max_rows\": null, \"persist\": true, \"keys_per_hit\": false}");
    assertEquals(IndexRequest.AUTO_BUDGET, request.maxRows());
    // a fifth of this JVM's heap, in keys of 12 bytes; a given budget is kept as it is
    assertEquals(Runtime.getRuntime().maxMemory() / 5 / 12, EntryCache.budget(request.maxRows()));
    assertEquals(7L, EntryCache.budget(7));
    assertEquals(0L, EntryCache.budget(0));
  }

  @Test
  void malformedRequestsAreRefused() {
    String[] bad = {
      "[]",
      "not json",
      "{\"key_columns\": [], \"sequence_column\": null, \"max_rows\": 1, \"persist\": true, \"keys_per_hit\": false}",
      "{\"key_columns\": [\"k\"], \"sequence_column\": \"\", \"max_rows\": 1, \"persist\": true, \"keys_per_hit\": false}",
      "{\"key_columns\": [\"k\"], \"max_rows\": 1, \"persist\": true, \"keys_per_hit\": false}",
      "{\"key_columns\": [\"k\"], \"sequence_column\": null, \"max_rows\": -1, \"persist\": true, \"keys_per_hit\": false}",
      "{\"key_columns\": [\"k\"], \"sequence_column\": null, \"max_rows\": \"auto\", \"persist\": true, \"keys_per_hit\": false}",
      "{\"key_columns\": [\"k\"], \"sequence_column\": null, \"max_rows\": 1, \"persist\": \"true\", \"keys_per_hit\": false}",
      "{\"key_columns\": [1], \"sequence_column\": null, \"max_rows\": 1, \"persist\": true, \"keys_per_hit\": false}",
      "{\"key_columns\": [\"k\"], \"sequence_column\": null, \"max_rows\": 1, \"persist\": true, \"keys_per_hit\": false, \"extra\": 1}",
    };
    for (String json : bad) {
      assertThrows(IllegalArgumentException.class, () -> IndexRequest.fromJson(json), json);
    }
  }
}
