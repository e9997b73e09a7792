package io.icebergdoris.keyindex;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * What a caller asks of the index, as one typed value instead of positional arguments: the table's
 * key columns (in key order), its sequence column (null: none), the executors' cache budget in
 * rows, whether entries are stored as files, and whether a probe keeps each live hit's batch key
 * (for {@link Lookup#readLiveRows} to take the key columns from it).
 *
 * <p>Python sends it as one JSON object ({@code iceberg_doris.engine.key_index.wire.IndexRequest}):
 * {@code {"key_columns": [..], "sequence_column": null | "..", "max_rows": null | n, "persist": b,
 * "keys_per_hit": b}}; every field is required and no other is accepted. A null {@code max_rows}
 * is {@link #AUTO_BUDGET}: each executor sizes its cache by its own heap.
 */
public final class IndexRequest implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final Set<String> FIELDS = Set.of("key_columns", "sequence_column", "max_rows", "persist", "keys_per_hit");

  /** The cache budget that each executor JVM derives from its own heap ({@link EntryCache#budget}). */
  public static final long AUTO_BUDGET = -1;

  private final List<String> keyColumns;
  private final String sequenceColumn;
  private final long maxRows;
  private final boolean persist;
  private final boolean keysPerHit;

  IndexRequest(List<String> keyColumns, String sequenceColumn, long maxRows, boolean persist, boolean keysPerHit) {
    if (keyColumns.isEmpty()) {
      throw new IllegalArgumentException("a key index request names no key column");
    }
    if (sequenceColumn != null && sequenceColumn.isEmpty()) {
      throw new IllegalArgumentException("a key index request's sequence column is empty (null is none)");
    }
    this.keyColumns = Collections.unmodifiableList(new ArrayList<>(keyColumns));
    this.sequenceColumn = sequenceColumn;
    this.maxRows = maxRows;
    this.persist = persist;
    this.keysPerHit = keysPerHit;
  }

  /** The request Python sent (see the class comment); malformed JSON or fields raise. */
  static IndexRequest fromJson(String json) {
    JsonNode node = Wire.parse(json);
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!FIELDS.contains(name)) {
        throw new IllegalArgumentException("a key index request with an unknown field: " + name);
      }
    }
    List<String> keys = new ArrayList<>();
    for (JsonNode key : Wire.required(node, "key_columns", JsonNode::isArray)) {
      if (!key.isTextual()) {
        throw new IllegalArgumentException("a key index request's key column is not text: " + key);
      }
      keys.add(key.asText());
    }
    JsonNode sequence = Wire.required(node, "sequence_column", n -> n.isNull() || n.isTextual());
    return new IndexRequest(
        keys,
        sequence.isNull() ? null : sequence.asText(),
        maxRows(Wire.required(node, "max_rows", n -> n.isNull() || n.canConvertToLong())),
        Wire.required(node, "persist", JsonNode::isBoolean).asBoolean(),
        Wire.required(node, "keys_per_hit", JsonNode::isBoolean).asBoolean());
  }

  /** A null budget is {@link #AUTO_BUDGET}; a negative one is refused here, where -1 cannot be mistaken for it. */
  private static long maxRows(JsonNode value) {
    if (value.isNull()) {
      return AUTO_BUDGET;
    }
    if (value.asLong() < 0) {
      throw new IllegalArgumentException("a key index request's max_rows is negative: " + value.asLong());
    }
    return value.asLong();
  }

  public List<String> keyColumns() {
    return keyColumns;
  }

  /** The sequence column, or null. */
  public String sequenceColumn() {
    return sequenceColumn;
  }

  /** The executors' cache budget in units of 12 bytes, or {@link #AUTO_BUDGET}. */
  public long maxRows() {
    return maxRows;
  }

  public boolean persist() {
    return persist;
  }

  public boolean keysPerHit() {
    return keysPerHit;
  }
}
