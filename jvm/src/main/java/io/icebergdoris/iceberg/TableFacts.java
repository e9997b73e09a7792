package io.icebergdoris.iceberg;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * What reading a table's Doris model needs from Iceberg (properties, the columns as Spark sees
 * them with their field ids, the field ids of every past schema), as one JSON text: a py4j round
 * trip costs ~0.1-0.3 ms, and walking the properties and columns from Python took some 300 of them
 * per load.
 */
public final class TableFacts {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private TableFacts() {}

  /**
   * {@code {"properties": {...}, "columns": [{"name", "sql", "nullable", "comment", "id"}...],
   * "schemas": [{name: id, ...} oldest first] }}; {@code schemas} only with {@code withHistory}.
   */
  public static String json(Table table, boolean withHistory) {
    Map<String, Object> facts = new LinkedHashMap<>();
    facts.put("properties", new TreeMap<>(table.properties()));
    Schema schema = table.schema();
    StructType struct = SparkSchemaUtil.convert(schema);
    List<Map<String, Object>> columns = new ArrayList<>();
    for (StructField field : struct.fields()) {
      Map<String, Object> column = new LinkedHashMap<>();
      column.put("name", field.name());
      column.put("sql", field.dataType().sql());
      column.put("nullable", field.nullable());
      column.put("comment", field.getComment().isDefined() ? field.getComment().get() : null);
      Types.NestedField nested = schema.findField(field.name());
      column.put("id", nested != null ? nested.fieldId() : null);
      columns.add(column);
    }
    facts.put("columns", columns);
    if (withHistory) {
      List<Map<String, Integer>> history = new ArrayList<>();
      for (Schema past : new TreeMap<>(table.schemas()).values()) {
        history.add(fieldIds(past));
      }
      facts.put("schemas", history);
    }
    try {
      return MAPPER.writeValueAsString(facts);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("could not describe table " + table.name(), e);
    }
  }

  private static Map<String, Integer> fieldIds(Schema schema) {
    Map<String, Integer> ids = new LinkedHashMap<>();
    for (Types.NestedField column : schema.columns()) {
      ids.put(column.name(), column.fieldId());
    }
    return ids;
  }
}
