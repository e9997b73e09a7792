package io.icebergdoris.spark;

import java.lang.reflect.Field;
import java.net.InetAddress;
import py4j.CallbackClient;
import py4j.GatewayServer;
import py4j.Py4JPythonClient;

/**
 * Points the driver's py4j callback client at the Python callback server and makes every new
 * connection it opens authenticate with the gateway's secret.
 *
 * <p>PySpark moves the callback client to the callback server's real port with {@code
 * GatewayServer.resetCallbackClient}, which copies the client with {@code copyWith}; py4j
 * 0.10.9.7's {@code PythonClient.copyWith} (the client of PySpark's default pinned-thread mode)
 * drops the auth token. A JVM thread that is not serving a Python call (a finalizer releasing a
 * Python proxy, a thread Python code started) then connects to Python without the token, so a
 * callback server that demands it would refuse the driver itself. This restores the token on the
 * copy; {@code CallbackClient.copyWith} (the non-pinned mode) already keeps it.
 */
public final class CallbackAuthentication {

  private CallbackAuthentication() {}

  /**
   * Moves the callback client to {@code 127.0.0.1:pythonPort} and makes it send {@code token}.
   *
   * @param server the py4j server of this driver (py4j's {@code GATEWAY_SERVER} object)
   */
  public static void connect(GatewayServer server, int pythonPort, String token) {
    if (token == null || token.isEmpty()) {
      throw new IllegalArgumentException("The callback server's auth token is empty");
    }
    server.resetCallbackClient(InetAddress.getLoopbackAddress(), pythonPort);
    Py4JPythonClient client = server.getCallbackClient();
    if (!(client instanceof CallbackClient)) {
      throw new IllegalStateException(
          "Unexpected py4j callback client " + client.getClass().getName() + "; cannot give it the auth token");
    }
    try {
      Field authToken = CallbackClient.class.getDeclaredField("authToken");
      authToken.setAccessible(true);
      if (!token.equals(authToken.get(client))) {
        // The field is final but read on every new connection; the fresh client has none open yet.
        authToken.set(client, token);
      }
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          "Cannot give py4j's callback client the auth token (py4j " + client.getClass().getPackage() + ")", e);
    }
  }

  /** Whether the driver's callback client authenticates with {@code token} (for tests and checks). */
  public static boolean usesToken(GatewayServer server, String token) {
    try {
      Field authToken = CallbackClient.class.getDeclaredField("authToken");
      authToken.setAccessible(true);
      return token != null && token.equals(authToken.get(server.getCallbackClient()));
    } catch (ReflectiveOperationException e) {
      return false;
    }
  }
}
