package io.icebergdoris.iceberg;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import org.apache.iceberg.ClientPool;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.jdbc.JdbcClientPool;

/**
 * Iceberg's JDBC catalog, with the connections its start-up used closed before it serves anything.
 *
 * <p>{@code JdbcCatalog.initialize} checks its tables with {@code DatabaseMetaData.getTables/getColumns}
 * on pooled connections and leaves those result sets open. Two failures follow, which this catalog
 * prevents by running the initialization on connections of its own and closing them:
 *
 * <ul>
 *   <li>SQLite in WAL mode: an open result set keeps its connection's read transaction open, so that
 *       pooled connection keeps seeing the database as it was when the session started: tables
 *       another process creates stay invisible, and the next commit through it fails with {@code
 *       SQLITE_BUSY_SNAPSHOT}.
 *   <li>PostgreSQL: Spark copies the session each time a DataFrame is cached (its cache manager plans
 *       in a clone), and each copy initializes a catalog of its own, which it never uses. The
 *       connection each initialization opened stayed open until the JVM's garbage collector freed
 *       it: a few writer processes exhausted the server's connections within minutes.
 * </ul>
 */
public class ClosedInitJdbcCatalog extends JdbcCatalog {

  private final PoolHolder holder;

  public ClosedInitJdbcCatalog() {
    this(new PoolHolder());
  }

  private ClosedInitJdbcCatalog(PoolHolder holder) {
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
