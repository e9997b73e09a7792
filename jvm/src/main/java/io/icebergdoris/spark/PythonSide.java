package io.icebergdoris.spark;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkContext;
import org.apache.spark.api.python.Py4JServer;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerApplicationEnd;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the Python side of iceberg-doris for a driver JVM that has none: spark-sql, the Thrift
 * server, a Scala or Java job. As spark-submit runs a PySpark program, a py4j gateway is started in
 * this JVM (Spark's own {@code Py4JServer}: 127.0.0.1, a random secret) and {@code <python> -m
 * iceberg_doris.entry.jvm_side} connects to it with the port and secret in its environment
 * (never on its command line), then registers its handler. Once per driver, again if the process
 * died. The process ends when this JVM does: it waits for the end of its standard input.
 */
final class PythonSide {

  static final String PYTHON_CONF = "spark.doris.python";
  static final String MODULE = "iceberg_doris.entry.jvm_side";
  private static final long WAIT_MILLIS = 120_000;
  private static final int KEPT_LINES = 20;
  private static final Logger LOG = LoggerFactory.getLogger(PythonSide.class);

  // Guarded by PythonSide.class.
  private static Process process;
  private static Py4JServer server;
  private static SparkContext watched;
  private static final Deque<String> LAST_ERRORS = new ArrayDeque<>();

  private PythonSide() {}

  /** Whether the process this class started is running (false when none was started). */
  static synchronized boolean running() {
    return process != null && process.isAlive();
  }

  /** Whether the registered handler is one this class started whose process has died. */
  static synchronized boolean died() {
    return process != null && !process.isAlive();
  }

  /**
   * The handler of a started Python side, starting it when none runs. Fails with a message naming
   * {@code spark.doris.python} when the interpreter is missing or cannot import iceberg_doris.
   */
  static synchronized ProcedureHandler start(String what) {
    ProcedureHandler current = ProcedureHandlers.registered();
    if (current != null && !died()) {
      return current; // another thread started it while this one waited
    }
    stop();
    scala.Option<SparkSession> session = SparkSession.getActiveSession();
    if (session.isEmpty()) {
      session = SparkSession.getDefaultSession();
    }
    if (session.isEmpty()) {
      throw new DorisProcedureException("ConfigurationError", what + " needs the Python side of iceberg-doris, "
          + "which starts on this driver's Spark session, and none is running: run it in a Spark session "
          + "(spark-sql, the Thrift server, a job) configured with iceberg-doris --print-spark-conf, or in "
          + "PySpark create the session with iceberg_doris.session(), or call iceberg_doris.install(spark) "
          + "on a session you built yourself.");
    }
    stopWith(session.get().sparkContext());
    SparkConf conf = session.get().sparkContext().getConf();
    String python = interpreter(conf);
    server = new Py4JServer(conf);
    server.start();
    String secret = server.secret();
    ProcessBuilder builder = new ProcessBuilder(List.of(python, "-m", MODULE));
    Map<String, String> env = builder.environment();
    env.put("PYSPARK_GATEWAY_PORT", Integer.toString(server.getListeningPort()));
    env.put("PYSPARK_GATEWAY_SECRET", secret);
    try {
      process = builder.start();
    } catch (IOException e) {
      stop();
      throw new DorisProcedureException("ConfigurationError", what + " needs the Python side of iceberg-doris, and "
          + "this driver could not start the interpreter '" + python + "' (" + e.getMessage() + "). Set "
          + PYTHON_CONF + " to a Python that has iceberg-doris installed, e.g. --conf " + PYTHON_CONF
          + "=/path/to/venv/bin/python.");
    }
    LAST_ERRORS.clear();
    follow(process.getInputStream(), false, secret);
    follow(process.getErrorStream(), true, secret);
    LOG.info("Started the Python side of iceberg-doris: {} -m {} (pid {})", python, MODULE, process.pid());
    long deadline = System.currentTimeMillis() + WAIT_MILLIS;
    while (true) {
      current = ProcedureHandlers.registered();
      if (current != null) {
        return current;
      }
      if (!process.isAlive()) {
        int code = process.exitValue();
        String lines = lastErrors();
        stop();
        throw new DorisProcedureException("ConfigurationError", what + " needs the Python side of iceberg-doris, "
            + "and '" + python + " -m " + MODULE + "' exited with code " + code + " before it was ready. Set "
            + PYTHON_CONF + " to a Python that has iceberg-doris and pyspark installed (the one that runs "
            + "iceberg-doris --print-spark-conf writes it). Its last lines:\n" + lines);
      }
      if (System.currentTimeMillis() > deadline) {
        String lines = lastErrors();
        stop();
        throw new DorisProcedureException("ConfigurationError", what + " needs the Python side of iceberg-doris, "
            + "and '" + python + " -m " + MODULE + "' was not ready after " + WAIT_MILLIS / 1000 + " s. Check "
            + PYTHON_CONF + " and the driver's log. Its last lines:\n" + lines);
      }
      try {
        PythonSide.class.wait(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        stop();
        throw new DorisProcedureException("ConfigurationError", what + " was interrupted while the Python side started");
      }
    }
  }

  /**
   * Stops the Python side when {@code context} stops. The gateway's threads are not daemons (as in
   * PySpark's own driver), so a Java or Scala job whose main method returned would otherwise wait
   * for them forever.
   */
  private static void stopWith(SparkContext context) {
    if (watched == context) {
      return;
    }
    context.addSparkListener(new SparkListener() {
      @Override
      public void onApplicationEnd(SparkListenerApplicationEnd end) {
        PythonSide.stop();
      }
    });
    watched = context;
  }

  /** {@code spark.doris.python}, else PYSPARK_DRIVER_PYTHON, else PYSPARK_PYTHON, else python3. */
  static String interpreter(SparkConf conf) {
    String configured = conf.get(PYTHON_CONF, "");
    if (!configured.isBlank()) {
      return configured;
    }
    for (String variable : new String[] {"PYSPARK_DRIVER_PYTHON", "PYSPARK_PYTHON"}) {
      String value = System.getenv(variable);
      if (value != null && !value.isBlank()) {
        return value;
      }
    }
    return "python3";
  }

  /** Ends the started process and its gateway (a new start makes new ones, with a new secret). */
  static synchronized void stop() {
    ProcedureHandlers.unregisterStarted();
    if (process != null) {
      process.destroy();
      process = null;
    }
    if (server != null) {
      server.shutdown();
      server = null;
    }
  }

  /** Sends the process's lines to the driver's log, keeping the last error lines for messages. */
  private static void follow(InputStream stream, boolean errors, String secret) {
    Thread thread = new Thread(() -> {
      try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
        String line;
        while ((line = reader.readLine()) != null) {
          String masked = line.replace(secret, "****");
          if (errors) {
            LOG.warn("[python side] {}", masked);
            synchronized (LAST_ERRORS) {
              LAST_ERRORS.addLast(masked);
              while (LAST_ERRORS.size() > KEPT_LINES) {
                LAST_ERRORS.removeFirst();
              }
            }
          } else {
            LOG.info("[python side] {}", masked);
          }
        }
      } catch (IOException e) {
        // The process ended: nothing more to read.
      }
    }, "iceberg-doris-python-side-" + (errors ? "stderr" : "stdout"));
    thread.setDaemon(true);
    thread.start();
  }

  private static String lastErrors() {
    try {
      Thread.sleep(200); // lets the reader threads take the process's last lines
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    synchronized (LAST_ERRORS) {
      return LAST_ERRORS.isEmpty() ? "(nothing on stderr)" : String.join("\n", LAST_ERRORS);
    }
  }
}
