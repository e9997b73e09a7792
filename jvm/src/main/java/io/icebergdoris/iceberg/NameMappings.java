package io.icebergdoris.iceberg;

import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.mapping.NameMappingParser;

/**
 * A table's default name mapping: how Parquet files written without Iceberg field ids (imported
 * with {@code add_files}, or by other writers) map their columns by name. Every reader of data
 * files must use it; without it Iceberg falls back to ids by column position.
 */
public final class NameMappings {

  private NameMappings() {}

  /** The table's name mapping, or null when it has none. */
  public static NameMapping of(Table table) {
    String json = table.properties().get(TableProperties.DEFAULT_NAME_MAPPING);
    if (json == null) {
      return null;
    }
    try {
      // Reflection: the parser's overloads name the runtime's relocated Jackson, which is not on
      // the bridge's compile class path.
      return (NameMapping) NameMappingParser.class.getMethod("fromJson", String.class).invoke(null, json);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot read the table's name mapping " + TableProperties.DEFAULT_NAME_MAPPING, e);
    }
  }

  /** The mapping's JSON (what identifies it), or "" when the table has none. */
  public static String text(Table table) {
    String json = table.properties().get(TableProperties.DEFAULT_NAME_MAPPING);
    return json == null ? "" : json;
  }
}
