package io.icebergdoris.spark;

import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The {@code spark.authenticate.secret} of a {@code local-cluster} session, made inside the driver
 * JVM.
 *
 * <p>Spark generates the authentication secret itself only for {@code local[...]} and YARN masters;
 * every other master (local-cluster among them) requires it in the SparkConf, and secret files are
 * Kubernetes-only. A setting passed at launch lands on spark-submit's command line, and one set
 * from Python travels as py4j command text (logged at DEBUG level). So the secret is made here, in
 * the JVM, as a system property: the SparkConf the session is then created with loads it, and
 * Spark's standalone worker hands it to each executor in its environment ({@code
 * _SPARK_AUTH_SECRET}, readable only by the owner), never on a command line.
 */
public final class ClusterSecret {

  static final String KEY = "spark.authenticate.secret";
  private static final int BYTES = 32;

  private ClusterSecret() {}

  /** Makes a new random secret unless one is set already; true if it made one. */
  public static synchronized boolean provideIfMissing() {
    String existing = System.getProperty(KEY);
    if (existing != null && !existing.isEmpty()) {
      return false;
    }
    byte[] secret = new byte[BYTES];
    new SecureRandom().nextBytes(secret);
    System.setProperty(KEY, HexFormat.of().formatHex(secret));
    return true;
  }
}
