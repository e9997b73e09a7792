package io.icebergdoris.spark;

/** Holds the Python handler registered for this driver JVM. */
public final class ProcedureHandlers {

  private static volatile ProcedureHandler handler;

  private ProcedureHandlers() {}

  public static void register(ProcedureHandler pythonHandler) {
    handler = pythonHandler;
  }

  public static void unregister() {
    handler = null;
  }

  public static boolean isRegistered() {
    return handler != null;
  }

  static ProcedureHandler current() {
    ProcedureHandler current = handler;
    if (current == null) {
      throw SparkCompat.procedureFailure("ConfigurationError", missing("CALL doris.*"));
    }
    return current;
  }

  /** The handler, for {@code what} (not a CALL: a plain exception, which Spark passes on as it is). */
  static ProcedureHandler current(String what) {
    ProcedureHandler current = handler;
    if (current == null) {
      throw new DorisProcedureException("ConfigurationError", missing(what));
    }
    return current;
  }

  private static String missing(String what) {
    return what + " needs the Python side of iceberg-doris in this Spark driver: create the "
        + "session with iceberg_doris.session(), or call iceberg_doris.install(spark) on a "
        + "PySpark session you built yourself.";
  }
}
