package io.icebergdoris.spark;

/**
 * Holds the Python handler registered for this driver JVM: a PySpark driver's own ({@code
 * iceberg_doris.install}), or the one {@link PythonSide} starts when there is none.
 */
public final class ProcedureHandlers {

  private static volatile ProcedureHandler handler;
  // Whether handler is the one of a Python side PythonSide started (not a PySpark driver's own).
  private static volatile boolean started;

  private ProcedureHandlers() {}

  public static void register(ProcedureHandler pythonHandler) {
    handler = pythonHandler;
  }

  public static void unregister() {
    handler = null;
    started = false;
  }

  /** Registers the handler of the Python side {@link PythonSide} started for this driver. */
  public static void registerStarted(SessionProcedureHandler pythonHandler) {
    handler = CallerSessions.bind(pythonHandler);
    started = true;
  }

  static void unregisterStarted() {
    if (started) {
      unregister();
    }
  }

  static ProcedureHandler registered() {
    return handler;
  }

  public static boolean isRegistered() {
    return handler != null;
  }

  static ProcedureHandler current() {
    try {
      return current("CALL doris.*");
    } catch (DorisProcedureException e) {
      throw SparkCompat.procedureFailure(e.errorType(), e.getMessage());
    }
  }

  /** The handler, for {@code what} (not a CALL: a plain exception, which Spark passes on as it is). */
  static ProcedureHandler current(String what) {
    ProcedureHandler current = handler;
    if (current != null && !(started && PythonSide.died())) {
      return current;
    }
    // No PySpark driver registered one (spark-sql, the Thrift server, a JVM job), or the started
    // Python side died: start it.
    return PythonSide.start(what);
  }
}
