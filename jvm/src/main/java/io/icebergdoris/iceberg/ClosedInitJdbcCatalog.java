package io.icebergdoris.iceberg;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import org.apache.iceberg.ClientPool;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
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
 *
 * <p>It also replaces one table's name with another's in one database transaction ({@link
 * #replaceTable}), which Iceberg's catalog API cannot: two renames would let a reader find a name
 * missing in between.
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

  // Iceberg's own V1 statements (JdbcUtil), with a compare-and-swap on the row's metadata location:
  // a commit to either table after the caller read it makes the statement change no row.
  private static final String MOVE_TABLE_SQL =
      "UPDATE iceberg_tables SET metadata_location = ?, previous_metadata_location = ?"
          + " WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? AND metadata_location = ?"
          + " AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)";
  private static final String DROP_TABLE_SQL =
      "DELETE FROM iceberg_tables"
          + " WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? AND metadata_location = ?"
          + " AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)";

  /**
   * Doris's {@code ALTER TABLE target REPLACE WITH TABLE source}, as one transaction on the catalog
   * database: {@code target} names the table {@code source} named; with {@code swap} {@code source}
   * names the table {@code target} named, without it {@code source}'s row is gone (the replaced
   * table's files stay where they are). Each row changes only if it still points at the metadata
   * file the caller read ({@code targetMetadata}, {@code sourceMetadata}); the rows are changed in a
   * fixed order (by name), so two swaps of the same pair cannot deadlock.
   *
   * @return true if the transaction committed; false if a table had moved on (or gone), when
   *     nothing changed
   * @throws CommitStateUnknownException if the database failed while committing: the swap may
   *     have landed
   */
  public boolean replaceTable(
      TableIdentifier target,
      String targetMetadata,
      String targetPrevious,
      TableIdentifier source,
      String sourceMetadata,
      String sourcePrevious,
      boolean swap)
      throws SQLException, InterruptedException {
    return holder.pool.run(
        connection -> {
          boolean autoCommit = connection.getAutoCommit();
          connection.setAutoCommit(false);
          try {
            boolean targetFirst = target.toString().compareTo(source.toString()) < 0;
            boolean changed =
                targetFirst
                    ? move(connection, target, targetMetadata, sourceMetadata, sourcePrevious)
                        && moveOrDrop(connection, source, sourceMetadata, targetMetadata, targetPrevious, swap)
                    : moveOrDrop(connection, source, sourceMetadata, targetMetadata, targetPrevious, swap)
                        && move(connection, target, targetMetadata, sourceMetadata, sourcePrevious);
            if (!changed) {
              connection.rollback();
              return false;
            }
            try {
              connection.commit();
            } catch (SQLException e) {
              throw new CommitStateUnknownException(e);
            }
            return true;
          } catch (SQLException | RuntimeException e) {
            if (!(e instanceof CommitStateUnknownException)) {
              connection.rollback();
            }
            throw e;
          } finally {
            connection.setAutoCommit(autoCommit);
          }
        },
        false);
  }

  private boolean moveOrDrop(
      Connection connection,
      TableIdentifier name,
      String expected,
      String metadata,
      String previous,
      boolean swap)
      throws SQLException {
    if (swap) {
      return move(connection, name, expected, metadata, previous);
    }
    try (PreparedStatement statement = connection.prepareStatement(DROP_TABLE_SQL)) {
      bindName(statement, 1, name);
      statement.setString(4, expected);
      return statement.executeUpdate() == 1;
    }
  }

  /** Points {@code name}'s row at {@code metadata} if it still points at {@code expected}. */
  private boolean move(Connection connection, TableIdentifier name, String expected, String metadata, String previous)
      throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(MOVE_TABLE_SQL)) {
      statement.setString(1, metadata);
      statement.setString(2, previous);
      bindName(statement, 3, name);
      statement.setString(6, expected);
      return statement.executeUpdate() == 1;
    }
  }

  private void bindName(PreparedStatement statement, int first, TableIdentifier name) throws SQLException {
    statement.setString(first, name());
    statement.setString(first + 1, String.join(".", name.namespace().levels()));
    statement.setString(first + 2, name.name());
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
