package io.icebergdoris.spark;

import java.time.ZoneId;
import java.util.Collections;
import java.util.Iterator;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.procedures.BoundProcedure;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.connector.read.LocalScan;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A procedure whose body is Python, on Spark 4's procedure API. Binding accepts whatever
 * arguments the call gave (one parameter per argument, of the argument's own type, so Spark
 * casts nothing); the evaluated arguments go to Python as one JSON object, where binding,
 * defaults and type checks happen once for the SQL and the Python entry points.
 */
final class PythonProcedure implements UnboundProcedure {

  private final ProcedureLookup found; // the procedure, as the Python side declared it

  PythonProcedure(ProcedureLookup found) {
    this.found = found;
  }

  @Override
  public String name() {
    return found.name();
  }

  @Override
  public String description() {
    return found.description();
  }

  @Override
  public BoundProcedure bind(StructType inputType) {
    return new Bound(inputType);
  }

  private final class Bound implements BoundProcedure {
    private final StructType inputType;
    private final boolean[] named;
    private final ProcedureParameter[] parameters;

    Bound(StructType inputType) {
      this.inputType = inputType;
      StructField[] fields = inputType.fields();
      this.named = new boolean[fields.length];
      this.parameters = new ProcedureParameter[fields.length];
      for (int i = 0; i < fields.length; i++) {
        named[i] = isNamed(fields[i]);
        parameters[i] = ProcedureParameter.in(fields[i].name(), fields[i].dataType()).build();
      }
    }

    @Override
    public String name() {
      return found.name();
    }

    @Override
    public String description() {
      return found.description();
    }

    @Override
    public ProcedureParameter[] parameters() {
      return parameters;
    }

    @Override
    public boolean isDeterministic() {
      return false;
    }

    @Override
    public Iterator<Scan> call(InternalRow input) {
      ZoneId zone = ZoneId.of(SQLConf.get().sessionLocalTimeZone());
      String arguments = ArgumentsJson.write(inputType, input, named, zone);
      ProcedureAnswers.Answer answer = ProcedureAnswers.answer(found.name(), arguments, found.output());
      return Collections.<Scan>singletonList(new Rows(answer.rows, answer.type)).iterator();
    }
  }

  private static boolean isNamed(StructField field) {
    return field.metadata().contains(ProcedureParameter.BY_NAME_METADATA_KEY)
        && field.metadata().getBoolean(ProcedureParameter.BY_NAME_METADATA_KEY);
  }

  /** The procedure's result rows. */
  private static final class Rows implements LocalScan {
    private final InternalRow[] rows;
    private final StructType type;

    Rows(InternalRow[] rows, StructType type) {
      this.rows = rows;
      this.type = type;
    }

    @Override
    public InternalRow[] rows() {
      return rows;
    }

    @Override
    public StructType readSchema() {
      return type; // the declared output, or the columns of the frame the procedure answered with
    }
  }
}
