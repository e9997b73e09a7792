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

  private final String name;
  private final StructType output;
  private final String description;

  PythonProcedure(String name, StructType output, String description) {
    this.name = name;
    this.output = output;
    this.description = description;
  }

  @Override
  public ProcedureParameter[] parameters() {
    return new ProcedureParameter[] {ProcedureParameter.required(ARGUMENTS, DataTypes.StringType)};
  }

  @Override
  public StructType outputType() {
    return output;
  }

  @Override
  public String description() {
    return description;
  }

  @Override
  public InternalRow[] call(InternalRow args) {
    String arguments = args.isNullAt(0) ? "{}" : args.getUTF8String(0).toString();
    return ProcedureAnswers.call(name, arguments, output);
  }
}
