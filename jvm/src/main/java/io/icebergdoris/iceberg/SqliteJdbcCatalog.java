package io.icebergdoris.iceberg;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import org.apache.iceberg.ClientPool;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.jdbc.JdbcClientPool;

/**
 * Iceberg's JDBC catalog on a SQLite file, without a connection stuck in an old read snapshot.
 *
 * <p>When the catalog tables already exist, {@code JdbcCatalog.initialize} checks for them with
 * {@code DatabaseMetaData.getTables/getColumns} and leaves those result sets open. On SQLite in
 * WAL mode an open result set keeps its connection's read transaction open, so that pooled
 * connection keeps seeing the database as it was when the session started: tables another process
 * (pyiceberg, a second Spark session) creates stay invisible, and the next commit through it fails
 * with {@code SQLITE_BUSY_SNAPSHOT}. This catalog runs the initialization on connections of its own
 * and closes them (which ends those reads) before any catalog operation runs.
 */
public class SqliteJdbcCatalog extends JdbcCatalog {

  private final PoolHolder holder;

  public SqliteJdbcCatalog() {
    this(new PoolHolder());
  }

  private SqliteJdbcCatalog(PoolHolder holder) {
    super(null, holder::create, true);
    this.holder = holder;
  }

  @Override
  public void initialize(String name, Map<String, String> properties) {
    super.initialize(name, properties);
    holder.pool.reopen();
  }

  /** Lets the constructor hand Iceberg a pool factory and keep the pool it made. */
  private static final class PoolHolder {
    private ReopenablePool pool;

    JdbcClientPool create(Map<String, String> properties) {
      pool = new ReopenablePool(properties.get("uri"), properties);
      return pool;
    }
  }

  /**
   * A pool whose connections can all be replaced at once. Every call goes to the current inner
   * pool; its own (inherited) connection slots are never used.
   */
  static final class ReopenablePool extends JdbcClientPool {
    private final String uri;
    private final Map<String, String> properties;
    private volatile JdbcClientPool current;

    ReopenablePool(String uri, Map<String, String> properties) {
      super(uri, properties);
      this.uri = uri;
      this.properties = properties;
      this.current = new JdbcClientPool(uri, properties);
    }

    /** Closes every connection opened so far; later calls open fresh ones. */
    void reopen() {
      JdbcClientPool previous = current;
      current = new JdbcClientPool(uri, properties);
      previous.close();
    }

    @Override
    public <R> R run(ClientPool.Action<R, Connection, SQLException> action)
        throws SQLException, InterruptedException {
      return current.run(action);
    }

    @Override
    public <R> R run(ClientPool.Action<R, Connection, SQLException> action, boolean retry)
        throws SQLException, InterruptedException {
      return current.run(action, retry);
    }

    @Override
    public void close() {
      current.close();
      super.close();
    }
  }
}
