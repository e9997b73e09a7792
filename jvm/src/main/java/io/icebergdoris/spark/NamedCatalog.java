package io.icebergdoris.spark;

import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The catalog plumbing both lines' {@link DorisProcedureCatalog} share: it keeps the name Spark
 * registered it under ({@code spark.sql.catalog.<name>}), {@code doris} by default, and takes no
 * options.
 */
abstract class NamedCatalog implements CatalogPlugin {

  /** The catalog name {@code CALL doris.<procedure>(...)} routes to. */
  public static final String CATALOG = "doris";

  private String name = CATALOG;

  @Override
  public void initialize(String catalogName, CaseInsensitiveStringMap options) {
    this.name = catalogName;
  }

  @Override
  public String name() {
    return name;
  }
}
