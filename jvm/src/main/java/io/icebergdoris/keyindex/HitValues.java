package io.icebergdoris.keyindex;

import io.icebergdoris.keyindex.pages.DirectZstd;
import io.icebergdoris.keyindex.pages.PageBytes;
import io.icebergdoris.keyindex.pages.PlainValues;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.shaded.org.apache.parquet.bytes.ByteBufferInputStream;
import org.apache.iceberg.shaded.org.apache.parquet.column.ColumnDescriptor;
import org.apache.iceberg.shaded.org.apache.parquet.column.Encoding;
import org.apache.iceberg.shaded.org.apache.parquet.column.page.DataPage;
import org.apache.iceberg.shaded.org.apache.parquet.column.page.DataPageV1;
import org.apache.iceberg.shaded.org.apache.parquet.column.page.DataPageV2;
import org.apache.iceberg.shaded.org.apache.parquet.column.page.DictionaryPage;
import org.apache.iceberg.shaded.org.apache.parquet.column.page.PageReadStore;
import org.apache.iceberg.shaded.org.apache.parquet.column.page.PageReader;
import org.apache.iceberg.shaded.org.apache.parquet.column.values.rle.RunLengthBitPackingHybridDecoder;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.iceberg.shaded.org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.iceberg.shaded.org.apache.parquet.schema.MessageType;
import org.apache.iceberg.shaded.org.apache.parquet.schema.PrimitiveType;
import org.apache.iceberg.shaded.org.apache.parquet.schema.Type;
import org.apache.iceberg.types.Type.TypeID;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The values of a data file's rows at given positions, decoded straight from its Parquet pages.
 *
 * <p>A load that merges with stored rows (aggregate keys, partial-column updates) reads its hits'
 * rows by position. At 1% of a 10M-row table every 20,000-row page holds about 200 hits, so no page
 * can be skipped, and Iceberg's vectorized reader copied every value of every page into column
 * vectors: 0.5 s per 5M-row file of four columns, 0.3 s of it the string column. Here a page's
 * values are only located (fixed-width ones by arithmetic, strings by stepping over their lengths,
 * dictionary ids unpacked) and only the hits' values are built.
 *
 * <p>It covers what Iceberg's Parquet writer produces: flat columns found by field id, PLAIN or
 * dictionary values, v1 or v2 data pages, RLE definition levels, and the physical types of
 * Iceberg's primitive types (with int to long, float to double and decimal precision promotion).
 * For any other file (a column without a field id or missing from the file, another encoding, a
 * nested or timestamp-in-millis column) {@link #read} returns null and the caller reads the file
 * with Iceberg's reader, which handles everything.
 */
final class HitValues {
  private HitValues() {}

  // Files this JVM decoded here (not through Iceberg's reader): what tests and diagnostics watch.
  static final AtomicLong FILES_DECODED = new AtomicLong();

  /** A page or column this class does not decode; the file goes to Iceberg's reader instead. */
  private static final class Unsupported extends Exception {
    private static final long serialVersionUID = 1L;

    Unsupported(String why) {
      super(why, null, false, false);
    }
  }

  private static final Set<Encoding> VALUE_ENCODINGS =
      EnumSet.of(Encoding.PLAIN, Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY);
  // Levels: RLE, or BIT_PACKED as Parquet lists it for the (empty) repetition levels of flat columns.
  private static final Set<Encoding> LEVEL_ENCODINGS = EnumSet.of(Encoding.RLE, Encoding.BIT_PACKED);

  /**
   * The rows at {@code positions} (sorted, distinct) of the file: {@code leading[i]} (the key values
   * of the i-th position when known, else nothing), the values of {@code projection}'s columns,
   * then {@code location} and the position; or null if the file has a column or page this class
   * does not decode.
   */
  static List<InternalRow> read(InputFile input, Schema projection, String location, long[] positions, Object[][] leading)
      throws IOException {
    try (ParquetFileReader reader = ParquetFileReader.open(new KeyIndexFiles.ParquetInput(input), DirectZstd.options())) {
      MessageType fileSchema = reader.getFooter().getFileMetaData().getSchema();
      List<Types.NestedField> fields = projection.columns();
      ValueKind[] kinds = new ValueKind[fields.size()];
      List<Type> requested = new ArrayList<>();
      for (int c = 0; c < kinds.length; c++) {
        PrimitiveType column = topLevelColumn(fileSchema, fields.get(c).fieldId());
        kinds[c] = column == null ? null : ValueKind.of(fields.get(c).type(), column);
        if (kinds[c] == null) {
          return null;
        }
        requested.add(column);
      }
      MessageType request = new MessageType(fileSchema.getName(), requested);
      List<ColumnDescriptor> columns = request.getColumns();
      if (!encodingsDecoded(reader.getRowGroups(), columns)) {
        return null;
      }
      reader.setRequestedSchema(request);
      Object[][] values = new Object[kinds.length][positions.length];
      long groupStart = 0;
      int at = 0;
      for (BlockMetaData group : reader.getRowGroups()) {
        long groupEnd = groupStart + group.getRowCount();
        int until = Sorting.lowerBound(positions, at, positions.length, groupEnd);
        if (until == at) {
          reader.skipNextRowGroup();
        } else {
          PageReadStore pages = reader.readNextRowGroup();
          for (int c = 0; c < kinds.length; c++) {
            ColumnChunk chunk = new ColumnChunk(columns.get(c), kinds[c], pages.getPageReader(columns.get(c)));
            chunk.decode(positions, at, until, groupStart, values[c]);
          }
        }
        groupStart = groupEnd;
        at = until;
      }
      if (at != positions.length) {
        throw new IllegalStateException(location + " holds " + at + " of the " + positions.length + " rows the key index points at");
      }
      UTF8String file = UTF8String.fromString(location);
      List<InternalRow> rows = new ArrayList<>(positions.length);
      for (int i = 0; i < positions.length; i++) {
        Object[] row = new Object[kinds.length];
        for (int c = 0; c < kinds.length; c++) {
          row[c] = values[c][i];
        }
        rows.add(KeyIndexRows.row(leading == null ? null : leading[i], row, file, positions[i]));
      }
      FILES_DECODED.incrementAndGet();
      return rows;
    } catch (Unsupported e) {
      return null;
    }
  }

  /** The flat, unrepeated column of the file with Iceberg field id {@code id}, or null. */
  private static PrimitiveType topLevelColumn(MessageType fileSchema, int id) {
    for (Type field : fileSchema.getFields()) {
      if (field.getId() != null && field.getId().intValue() == id) {
        return field.isPrimitive() && !field.isRepetition(Type.Repetition.REPEATED) ? field.asPrimitiveType() : null;
      }
    }
    return null;
  }

  /** Whether every chunk of these columns lists only encodings this class decodes. */
  private static boolean encodingsDecoded(List<BlockMetaData> groups, List<ColumnDescriptor> columns) {
    for (BlockMetaData group : groups) {
      for (ColumnChunkMetaData chunk : group.getColumns()) {
        for (ColumnDescriptor column : columns) {
          if (chunk.getPath().equals(ColumnPath.get(column.getPath()))) {
            for (Encoding encoding : chunk.getEncodings()) {
              if (!VALUE_ENCODINGS.contains(encoding) && !LEVEL_ENCODINGS.contains(encoding)) {
                return false;
              }
            }
          }
        }
      }
    }
    return true;
  }

  /** One row group's pages of one column, decoded at the hit positions. */
  private static final class ColumnChunk {
    private final ColumnDescriptor column;
    private final ValueKind kind;
    private final PageReader pages;
    private final boolean optional;
    private final int width; // bytes per PLAIN value; 0 for BINARY, -1 for BOOLEAN (bits)
    private int[] ids = new int[0]; // a page's dictionary ids, reused
    private byte[] defined = new byte[0]; // a page's definition levels, reused
    private PageBytes dictionary;
    private int[] dictionaryStarts; // where each dictionary value starts (BINARY values: after their length)
    private int[] dictionaryLengths;

    ColumnChunk(ColumnDescriptor column, ValueKind kind, PageReader pages) {
      this.column = column;
      this.kind = kind;
      this.pages = pages;
      this.optional = column.getMaxDefinitionLevel() > 0;
      this.width = plainWidth(column.getPrimitiveType());
    }

    void decode(long[] positions, int from, int until, long groupStart, Object[] into) throws IOException, Unsupported {
      DictionaryPage dictionaryPage = pages.readDictionaryPage();
      if (dictionaryPage != null) {
        readDictionary(dictionaryPage);
      }
      long pageStart = groupStart;
      int at = from;
      DataPage page;
      while (at < until && (page = pages.readPage()) != null) {
        long pageRows = page instanceof DataPageV2 ? ((DataPageV2) page).getRowCount() : page.getValueCount();
        int last = Sorting.lowerBound(positions, at, until, pageStart + pageRows);
        if (last > at) { // a page without a hit is neither decompressed nor decoded
          decodePage(page, (int) pageRows, positions, at, last, pageStart, into);
        }
        at = last;
        pageStart += pageRows;
      }
      if (at != until) {
        throw new IllegalStateException("column " + column + " ends before row " + positions[at] + " its row group holds");
      }
    }

    private void readDictionary(DictionaryPage page) throws IOException, Unsupported {
      if (page.getEncoding() != Encoding.PLAIN && page.getEncoding() != Encoding.PLAIN_DICTIONARY) {
        throw new Unsupported("dictionary in " + page.getEncoding());
      }
      dictionary = PageBytes.of(page.getBytes().toByteBuffer());
      int count = page.getDictionarySize();
      dictionaryStarts = new int[count];
      dictionaryLengths = new int[count];
      int offset = dictionary.from;
      for (int i = 0; i < count; i++) {
        int length = width > 0 ? width : width == 0 ? binaryLength(dictionary, offset) : -1;
        if (length < 0) {
          throw new Unsupported("a dictionary of booleans");
        }
        int start = width == 0 ? offset + 4 : offset;
        if (start + length > dictionary.limit) {
          throw new IllegalStateException("column " + column + " has a dictionary shorter than its " + count + " values");
        }
        dictionaryStarts[i] = start;
        dictionaryLengths[i] = length;
        offset = start + length;
      }
    }

    /** Decodes the hits {@code positions[from, until)} of a page of {@code rows} rows starting at row {@code pageStart}. */
    private void decodePage(DataPage page, int rows, long[] positions, int from, int until, long pageStart, Object[] into)
        throws IOException, Unsupported {
      PageBytes values;
      Encoding encoding;
      int valuesFrom;
      boolean allDefined = true;
      if (page instanceof DataPageV1) {
        DataPageV1 v1 = (DataPageV1) page;
        values = PageBytes.of(v1.getBytes().toByteBuffer());
        encoding = v1.getValueEncoding();
        valuesFrom = values.from;
        if (optional) {
          if (v1.getDlEncoding() != Encoding.RLE) {
            throw new Unsupported("definition levels in " + v1.getDlEncoding());
          }
          int length = PlainValues.intLittleEndian(values.bytes, valuesFrom, values.limit);
          int levelsFrom = valuesFrom + 4;
          valuesFrom = levelsFrom + length;
          if (length < 0 || valuesFrom > values.limit) {
            throw new IllegalStateException("column " + column + " has a page with damaged definition levels");
          }
          allDefined = levels(values.bytes, levelsFrom, valuesFrom, rows);
        }
      } else {
        DataPageV2 v2 = (DataPageV2) page;
        values = PageBytes.of(v2.getData().toByteBuffer());
        encoding = v2.getDataEncoding();
        valuesFrom = values.from;
        if (optional && v2.getNullCount() != 0) {
          PageBytes levels = PageBytes.of(v2.getDefinitionLevels().toByteBuffer());
          allDefined = levels(levels.bytes, levels.from, levels.limit, rows);
        }
      }
      // The index among the page's non-null values of each hit (-1: null), in hit order.
      int[] valueIndex = new int[until - from];
      int definedBefore = 0;
      int row = 0;
      for (int h = from; h < until; h++) {
        int hitRow = (int) (positions[h] - pageStart);
        if (allDefined) {
          valueIndex[h - from] = hitRow;
          continue;
        }
        for (; row < hitRow; row++) {
          definedBefore += defined[row];
        }
        valueIndex[h - from] = defined[hitRow] == 1 ? definedBefore : -1;
      }
      int lastIndex = -1;
      for (int index : valueIndex) {
        lastIndex = Math.max(lastIndex, index);
      }
      if (lastIndex < 0) {
        return; // only nulls
      }
      if (encoding == Encoding.PLAIN) {
        plainValues(values, valuesFrom, valueIndex, from, into);
      } else if (encoding == Encoding.PLAIN_DICTIONARY || encoding == Encoding.RLE_DICTIONARY) {
        if (dictionary == null) {
          throw new IllegalStateException("column " + column + " has dictionary pages without a dictionary");
        }
        if (valuesFrom >= values.limit) {
          throw new IllegalStateException("column " + column + " has an empty dictionary page");
        }
        int bitWidth = values.bytes[valuesFrom];
        if (ids.length < lastIndex + 1) {
          ids = new int[Math.max(lastIndex + 1, 2 * ids.length)];
        }
        hybrid(values.bytes, valuesFrom + 1, values.limit, bitWidth, ids, lastIndex + 1);
        for (int h = 0; h < valueIndex.length; h++) {
          if (valueIndex[h] >= 0) {
            int id = ids[valueIndex[h]];
            if (id < 0 || id >= dictionaryStarts.length) {
              throw new IllegalStateException("column " + column + " has a dictionary id past its dictionary");
            }
            into[from + h] = kind.value(dictionary.bytes, dictionaryStarts[id], dictionaryLengths[id]);
          }
        }
      } else {
        throw new Unsupported("values in " + encoding);
      }
    }

    /** Reads a page's definition levels into {@link #defined}; true if every row is defined (then {@link #defined} is not filled). */
    private boolean levels(byte[] bytes, int from, int limit, int rows) {
      if (defined.length < rows) {
        defined = new byte[Math.max(rows, 2 * defined.length)];
      }
      if (ids.length < rows) {
        ids = new int[Math.max(rows, 2 * ids.length)];
      }
      hybrid(bytes, from, limit, 1, ids, rows);
      boolean all = true;
      for (int i = 0; i < rows; i++) {
        defined[i] = (byte) ids[i];
        all &= ids[i] == 1;
      }
      return all;
    }

    /**
     * The first {@code count} values of the RLE / bit-packing hybrid run sequence at {@code
     * bytes[from, limit)} ({@code bitWidth} bits each: definition levels, dictionary ids), decoded
     * by Parquet's own decoder into {@code out}; a page whose runs end early raises.
     */
    private void hybrid(byte[] bytes, int from, int limit, int bitWidth, int[] out, int count) {
      if (bitWidth < 0 || bitWidth > 32 || from > limit) {
        throw new IllegalStateException("column " + column + " has a page with values " + bitWidth + " bits wide");
      }
      RunLengthBitPackingHybridDecoder decoder =
          new RunLengthBitPackingHybridDecoder(bitWidth, ByteBufferInputStream.wrap(ByteBuffer.wrap(bytes, from, limit - from)));
      try {
        for (int i = 0; i < count; i++) {
          out[i] = decoder.readInt();
        }
      } catch (IOException | RuntimeException e) {
        throw new IllegalStateException("column " + column + " has a page whose levels or ids end early", e);
      }
    }

    /** The PLAIN values at {@code valueIndex} (ascending among the non-null ones). */
    private void plainValues(PageBytes values, int valuesFrom, int[] valueIndex, int from, Object[] into) {
      int cursorIndex = 0; // BINARY: the value at cursorOffset
      int cursorOffset = valuesFrom;
      for (int h = 0; h < valueIndex.length; h++) {
        int index = valueIndex[h];
        if (index < 0) {
          continue;
        }
        if (width > 0) {
          long start = valuesFrom + (long) index * width;
          if (start + width > values.limit) {
            throw new IllegalStateException("column " + column + " has a page shorter than its values");
          }
          into[from + h] = kind.value(values.bytes, (int) start, width);
        } else if (width < 0) {
          int at = valuesFrom + (index >>> 3);
          if (at >= values.limit) {
            throw new IllegalStateException("column " + column + " has a page shorter than its values");
          }
          into[from + h] = ((values.bytes[at] >>> (index & 7)) & 1) == 1;
        } else {
          for (; cursorIndex < index; cursorIndex++) {
            cursorOffset += 4 + binaryLength(values, cursorOffset);
          }
          int length = binaryLength(values, cursorOffset);
          into[from + h] = kind.value(values.bytes, cursorOffset + 4, length);
        }
      }
    }

    private int binaryLength(PageBytes page, int offset) {
      int length = PlainValues.intLittleEndian(page.bytes, offset, page.limit);
      if (length < 0 || offset + 4L + length > page.limit) {
        throw new IllegalStateException("column " + column + " has a value longer than its page");
      }
      return length;
    }
  }

  private static int plainWidth(PrimitiveType type) {
    switch (type.getPrimitiveTypeName()) {
      case INT32:
      case FLOAT:
        return 4;
      case INT64:
      case DOUBLE:
        return 8;
      case FIXED_LEN_BYTE_ARRAY:
        return type.getTypeLength();
      case BOOLEAN:
        return -1;
      default:
        return 0;
    }
  }

  /** How a stored value (its bytes in a page or dictionary) becomes the Spark value of the table column's type. */
  @FunctionalInterface
  private interface ValueKind {
    Object value(byte[] bytes, int at, int length);

    ValueKind INT = (bytes, at, length) -> PlainValues.intLittleEndian(bytes, at, at + 4);
    ValueKind INT_AS_LONG = (bytes, at, length) -> (long) PlainValues.intLittleEndian(bytes, at, at + 4);
    ValueKind LONG = (bytes, at, length) -> PlainValues.longLittleEndian(bytes, at);
    ValueKind FLOAT = (bytes, at, length) -> Float.intBitsToFloat(PlainValues.intLittleEndian(bytes, at, at + 4));
    ValueKind FLOAT_AS_DOUBLE = (bytes, at, length) -> (double) Float.intBitsToFloat(PlainValues.intLittleEndian(bytes, at, at + 4));
    ValueKind DOUBLE = (bytes, at, length) -> Double.longBitsToDouble(PlainValues.longLittleEndian(bytes, at));
    ValueKind STRING = (bytes, at, length) -> UTF8String.fromBytes(Arrays.copyOfRange(bytes, at, at + length));
    ValueKind BYTES = (bytes, at, length) -> Arrays.copyOfRange(bytes, at, at + length);
    // PLAIN booleans are bits, read where the page is (a dictionary of booleans is not decoded here).
    ValueKind BOOLEAN = (bytes, at, length) -> {
      throw new IllegalStateException("booleans are read as bits");
    };

    /** The kind that reads {@code column} as {@code type}, or null if this class does not decode it. */
    static ValueKind of(org.apache.iceberg.types.Type type, PrimitiveType column) {
      LogicalTypeAnnotation annotation = column.getLogicalTypeAnnotation();
      TypeID id = type.typeId();
      switch (column.getPrimitiveTypeName()) {
        case BOOLEAN:
          return id == TypeID.BOOLEAN ? BOOLEAN : null;
        case INT32:
          if (plainInteger(annotation)) {
            return id == TypeID.INTEGER ? INT : id == TypeID.LONG ? INT_AS_LONG : null;
          }
          if (id == TypeID.DATE && annotation instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation) {
            return INT;
          }
          return decimal(type, annotation, false);
        case INT64:
          if (plainInteger(annotation)) {
            return id == TypeID.LONG ? LONG : null;
          }
          if (id == TypeID.TIMESTAMP && annotation instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation
              && ((LogicalTypeAnnotation.TimestampLogicalTypeAnnotation) annotation).getUnit() == LogicalTypeAnnotation.TimeUnit.MICROS) {
            return LONG;
          }
          return decimal(type, annotation, false);
        case FLOAT:
          return id == TypeID.FLOAT ? FLOAT : id == TypeID.DOUBLE ? FLOAT_AS_DOUBLE : null;
        case DOUBLE:
          return id == TypeID.DOUBLE ? DOUBLE : null;
        case BINARY:
          if (id == TypeID.STRING) {
            return STRING;
          }
          if (id == TypeID.BINARY) {
            return BYTES;
          }
          return decimal(type, annotation, true);
        case FIXED_LEN_BYTE_ARRAY:
          return decimal(type, annotation, true);
        default:
          return null; // INT96 timestamps: Iceberg's reader
      }
    }

    private static boolean plainInteger(LogicalTypeAnnotation annotation) {
      return annotation == null
          || annotation instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation
              && ((LogicalTypeAnnotation.IntLogicalTypeAnnotation) annotation).isSigned();
    }

    /**
     * A decimal of the table column's precision, if the file stores a decimal of the same scale
     * (Iceberg's only decimal promotion widens the precision); null otherwise.
     */
    private static ValueKind decimal(org.apache.iceberg.types.Type type, LogicalTypeAnnotation annotation, boolean bytes) {
      if (type.typeId() != TypeID.DECIMAL || !(annotation instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation)) {
        return null;
      }
      Types.DecimalType decimal = (Types.DecimalType) type;
      LogicalTypeAnnotation.DecimalLogicalTypeAnnotation stored = (LogicalTypeAnnotation.DecimalLogicalTypeAnnotation) annotation;
      if (stored.getScale() != decimal.scale() || stored.getPrecision() > decimal.precision()) {
        return null;
      }
      int precision = decimal.precision();
      int scale = decimal.scale();
      if (bytes) {
        // Big-endian two's complement, as Parquet stores FIXED_LEN_BYTE_ARRAY and BINARY decimals.
        return (data, at, length) ->
            Decimal.apply(new BigDecimal(new BigInteger(Arrays.copyOfRange(data, at, at + length)), scale), precision, scale);
      }
      return (data, at, length) ->
          new Decimal().set(length == 4 ? PlainValues.intLittleEndian(data, at, at + 4) : PlainValues.longLittleEndian(data, at), precision, scale);
    }
  }
}
