package io.icebergdoris.keyindex;

import io.icebergdoris.iceberg.NameMappings;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Table;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.types.Types;

/** How the probes of one lookup find, read, build and store entries. */
final class Layout implements Serializable {
  private static final long serialVersionUID = 1L;
  final KeyCodec codec;
  final List<Types.NestedField> keys;
  final Types.NestedField sequence; // null without a sequence column
  final String layoutHash;
  final boolean persist;
  final NameMapping names; // the table's name mapping (files without field ids), or null

  Layout(KeyCodec codec, List<Types.NestedField> keys, Types.NestedField sequence, boolean persist, NameMapping names, String namesText) {
    this.codec = codec;
    this.keys = keys;
    this.sequence = sequence;
    this.layoutHash = KeyIndexFiles.layoutHash(codec, sequence, namesText);
    this.persist = persist;
    this.names = names;
  }

  /** The layout of {@code request}'s key (and sequence) columns in {@code table}. */
  static Layout of(Table table, IndexRequest request, boolean persist) {
    return of(table, request.keyColumns(), request.sequenceColumn(), persist);
  }

  /** The layout of {@code keyColumns} and {@code sequenceColumn} (null: none) in {@code table}. */
  static Layout of(Table table, List<String> keyColumns, String sequenceColumn, boolean persist) {
    List<Types.NestedField> keys = new ArrayList<>();
    for (String name : keyColumns) {
      Types.NestedField field = table.schema().findField(name);
      if (field == null) {
        throw new IllegalArgumentException("no key column " + name);
      }
      keys.add(field);
    }
    Types.NestedField sequence = null;
    if (sequenceColumn != null) {
      sequence = table.schema().findField(sequenceColumn);
      KeyCodec.Kind kind = KeyCodec.kind(sequence.type());
      if (kind != KeyCodec.Kind.INT && kind != KeyCodec.Kind.LONG) {
        throw new IllegalArgumentException("The key index keeps integer, DATE or DATETIME sequence values, not " + sequence.type());
      }
    }
    return new Layout(KeyCodec.of(keys), keys, sequence, persist, NameMappings.of(table), NameMappings.text(table));
  }
}
