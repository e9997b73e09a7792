package io.icebergdoris.spark;

import java.io.IOException;
import ${servlet.package}.Filter;
import ${servlet.package}.FilterChain;
import ${servlet.package}.FilterConfig;
import ${servlet.package}.ServletRequest;
import ${servlet.package}.ServletResponse;
import ${servlet.package}.http.HttpServletResponse;

/**
 * A {@code spark.ui.filters} filter that answers every request with 403 (the servlet package is
 * the line's: javax on Spark 3.5, Jakarta on Spark 4).
 *
 * <p>A {@code local-cluster} master starts a standalone Master and Workers inside the driver JVM,
 * and each starts a web UI that Spark offers no switch to turn off ({@code spark.ui.enabled} covers
 * the application's UI only). Those UIs take no authentication: any local user could read executor
 * logs or kill the application through them. Spark installs {@code spark.ui.filters} on every UI
 * it starts, so this one closes them.
 */
public final class ClosedWebUi implements Filter {

  static final String MESSAGE =
      "This Spark web UI is closed by iceberg-doris (an embedded cluster's UIs take no authentication).";

  @Override
  public void init(FilterConfig config) {}

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain) throws IOException {
    ((HttpServletResponse) response).sendError(HttpServletResponse.SC_FORBIDDEN, MESSAGE);
  }

  @Override
  public void destroy() {}
}
