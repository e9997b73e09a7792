package io.icebergdoris.spark;

import java.lang.reflect.Field;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Lock;
import py4j.DefaultGatewayServerListener;
import py4j.GatewayServer;
import py4j.Py4JServerConnection;

/**
 * Turns off Nagle's algorithm on the driver's py4j connections.
 *
 * <p>py4j writes an answer through an 8 KiB encoder buffer, so an answer longer than that leaves
 * in two writes on a socket with Nagle's algorithm on: the second waits for the first one's
 * acknowledgement, which the Python side's kernel delays by up to 40 ms as it has nothing to send
 * back. Measured on this driver: an answer of 8,000 characters took 0.2 ms, one of 9,000 took 44
 * ms, and every larger one as long (the probe's hit positions of a 1% load: 20 KB, 45 ms). The
 * calls themselves stay one request and one answer, so sending each write at once costs nothing.
 */
public final class Py4jNoDelay extends DefaultGatewayServerListener {

  private Py4jNoDelay() {}

  /**
   * Sets {@code TCP_NODELAY} on every connection {@code server} holds, and on every one it accepts
   * from now on. Idempotent.
   *
   * @param server the py4j server of this driver (py4j's {@code GATEWAY_SERVER} object)
   * @return the connections set now
   */
  public static int apply(GatewayServer server) {
    synchronized (Py4jNoDelay.class) {
      boolean listening = server.getListeners().stream().anyMatch(l -> l instanceof Py4jNoDelay);
      if (!listening) {
        server.addListener(new Py4jNoDelay());
      }
    }
    int set = 0;
    for (Py4JServerConnection connection : connections(server)) {
      set += noDelay(connection.getSocket()) ? 1 : 0;
    }
    return set;
  }

  /** Connections of {@code server} that still wait for acknowledgements (for tests and checks). */
  public static int connectionsWithDelay(GatewayServer server) {
    int delayed = 0;
    for (Py4JServerConnection connection : connections(server)) {
      Socket socket = connection.getSocket();
      try {
        delayed += socket != null && !socket.isClosed() && !socket.getTcpNoDelay() ? 1 : 0;
      } catch (SocketException closing) {
        // closed meanwhile: it sends nothing more
      }
    }
    return delayed;
  }

  @Override
  public void connectionStarted(Py4JServerConnection connection) {
    noDelay(connection.getSocket());
  }

  private static boolean noDelay(Socket socket) {
    if (socket == null || socket.isClosed()) {
      return false;
    }
    try {
      socket.setTcpNoDelay(true);
      return true;
    } catch (SocketException closing) {
      return false;
    }
  }

  /**
   * The server's open connections. py4j keeps them in a private list under a private lock (no
   * accessor in 0.10.9.7); without them only the connections accepted from now on are set, which
   * is slower, never wrong.
   */
  private static List<Py4JServerConnection> connections(GatewayServer server) {
    try {
      Field listField = GatewayServer.class.getDeclaredField("connections");
      Field lockField = GatewayServer.class.getDeclaredField("lock");
      listField.setAccessible(true);
      lockField.setAccessible(true);
      @SuppressWarnings("unchecked")
      List<Py4JServerConnection> live = (List<Py4JServerConnection>) listField.get(server);
      Lock lock = (Lock) lockField.get(server);
      lock.lock();
      try {
        return new ArrayList<>(live);
      } finally {
        lock.unlock();
      }
    } catch (ReflectiveOperationException | RuntimeException e) {
      return List.of();
    }
  }
}
