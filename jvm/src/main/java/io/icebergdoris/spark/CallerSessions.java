package io.icebergdoris.spark;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The Spark session of each call in flight to a started Python side, by id: the Python side looks
 * its caller's session up here, so a Thrift server's connections each run in their own session
 * (their own SET values, temp views and current database), whichever thread py4j answers on.
 */
public final class CallerSessions {

  private static final Map<Long, SparkSession> SESSIONS = new ConcurrentHashMap<>();
  private static final AtomicLong NEXT = new AtomicLong();

  private CallerSessions() {}

  /** The session of call {@code id}; the Python side asks while the call runs. */
  public static SparkSession session(long id) {
    SparkSession session = SESSIONS.get(id);
    if (session == null) {
      throw new IllegalStateException("No call " + id + " of iceberg-doris is running in this driver");
    }
    return session;
  }

  /** How many calls are in flight (for checks: every call leaves). */
  public static int inFlight() {
    return SESSIONS.size();
  }

  /** Registers the calling thread's session: Spark makes a statement's session active while it runs. */
  static long enter() {
    scala.Option<SparkSession> active = SparkSession.getActiveSession();
    SparkSession session = active.isDefined() ? active.get() : SparkSession.getDefaultSession().get();
    long id = NEXT.incrementAndGet();
    SESSIONS.put(id, session);
    return id;
  }

  static void leave(long id) {
    SESSIONS.remove(id);
  }

  /** A {@link ProcedureHandler} that passes each call's session to {@code python}. */
  static ProcedureHandler bind(SessionProcedureHandler python) {
    return new ProcedureHandler() {
      @Override
      public String describe(String procedure) {
        return python.describe(procedure);
      }

      @Override
      public String call(String procedure, String argumentsJson) {
        long id = enter();
        try {
          return python.call(id, procedure, argumentsJson);
        } finally {
          leave(id);
        }
      }

      @Override
      public String statement(String statement, String procedure, String argumentsJson, String settingsJson) {
        long id = enter();
        try {
          return python.statement(id, statement, procedure, argumentsJson, settingsJson);
        } finally {
          leave(id);
        }
      }

      @Override
      public String streamOptions(String optionsJson) {
        long id = enter();
        try {
          return python.streamOptions(id, optionsJson);
        } finally {
          leave(id);
        }
      }

      @Override
      public String streamBatch(String optionsJson, Dataset<Row> batch, long batchId) {
        return python.streamBatch(optionsJson, batch, batchId);
      }
    };
  }
}
