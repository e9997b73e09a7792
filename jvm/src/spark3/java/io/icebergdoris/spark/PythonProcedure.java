package io.icebergdoris.spark;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.iceberg.catalog.Procedure;
import org.apache.spark.sql.connector.iceberg.catalog.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * A procedure whose body is Python (Spark 3.5, through Iceberg's procedure API). It declares one
 * string parameter, the JSON argument object that {@link DorisCallParser} builds; the Python side
 * binds it to the procedure's real parameters.
 */
final class PythonProcedure implements Procedure {

  static final String ARGUMENTS = "arguments_json";

  private final ProcedureLookup found; // the procedure, as the Python side declared it

  PythonProcedure(ProcedureLookup found) {
    this.found = found;
  }

  @Override
  public ProcedureParameter[] parameters() {
    return new ProcedureParameter[] {ProcedureParameter.required(ARGUMENTS, DataTypes.StringType)};
  }

  @Override
  public StructType outputType() {
    return found.output();
  }

  @Override
  public String description() {
    return found.description();
  }

  @Override
  public InternalRow[] call(InternalRow args) {
    String arguments = args.isNullAt(0) ? "{}" : args.getUTF8String(0).toString();
    return ProcedureAnswers.call(found.name(), arguments, found.output());
  }
}
