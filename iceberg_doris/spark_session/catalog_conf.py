"""The Spark settings that declare the catalog (:class:`~iceberg_doris.lake.CatalogSettings`)
as an Iceberg JDBC catalog: launch settings without secrets, and the secrets a running driver gets."""

from __future__ import annotations

from iceberg_doris.lake.settings import CatalogSettings

# Iceberg's JdbcCatalog, minus the connections its start-up leaves open (see the Java class).
JDBC_CATALOG_IMPL = "io.icebergdoris.iceberg.ClosedInitJdbcCatalog"


def spark_catalog_conf(settings: CatalogSettings) -> dict[str, str]:
    """Spark settings that declare this catalog as an Iceberg JDBC catalog, without secrets.

    The password is in :func:`spark_catalog_secrets`: :func:`iceberg_doris.install` hands it
    to the running driver, because launch settings end up on a process command line.
    """
    prefix = f"spark.sql.catalog.{settings.name}"
    conf = {
        prefix: "org.apache.iceberg.spark.SparkCatalog",
        f"{prefix}.uri": settings.jdbc_uri,
        # V1 is the schema pyiceberg's SqlCatalog shares (it has the iceberg_type column).
        f"{prefix}.jdbc.schema-version": "V1",
        f"{prefix}.warehouse": settings.warehouse,
        # Without this Spark keeps table metadata for 30 s and misses other writers' commits.
        f"{prefix}.cache-enabled": "false",
        # Format v3 gives deletion vectors; merge-on-read keeps Spark's own DML from rewriting files.
        f"{prefix}.table-default.format-version": "3",
        f"{prefix}.table-default.write.delete.mode": "merge-on-read",
        f"{prefix}.table-default.write.update.mode": "merge-on-read",
        f"{prefix}.table-default.write.merge.mode": "merge-on-read",
    }
    if settings.kind == "sqlite":
        # WAL lets readers and a writer work at once (Spark's pooled connections, pyiceberg,
        # other processes); without it a commit can fail with SQLITE_BUSY while a read is open.
        conf[f"{prefix}.jdbc.journal_mode"] = "WAL"
        conf[f"{prefix}.jdbc.busy_timeout"] = "30000"
    # Iceberg's JdbcCatalog leaves the connections of its start-up check open: on SQLite inside
    # a read (blind to other writers), on PostgreSQL one per cached DataFrame (Spark initialises
    # a catalog in each session copy it plans a cache in). Ours closes them.
    conf[f"{prefix}.catalog-impl"] = JDBC_CATALOG_IMPL
    if settings.jdbc_user is not None:
        conf[f"{prefix}.jdbc.user"] = settings.jdbc_user
    return conf

def spark_catalog_secrets(settings: CatalogSettings) -> dict[str, str]:
    """The catalog's secret Spark settings (its JDBC password), for a running session only."""
    if settings.jdbc_password is None:
        return {}
    return {f"spark.sql.catalog.{settings.name}.jdbc.password": settings.jdbc_password}
