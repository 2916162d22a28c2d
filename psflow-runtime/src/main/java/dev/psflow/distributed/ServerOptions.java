package dev.psflow.distributed;

/**
 * Options of a {@link Server}.
 *
 * @param peerWaitMillis how long a new session waits for the tasks it needs before failing UNAVAILABLE
 * @param transport the wire (null: the one found on the class path, gRPC)
 * @param limits what one request or peer may make the server hold
 */
public record ServerOptions(long peerWaitMillis, Transport transport, ServerLimits limits) {
  public static final ServerOptions DEFAULTS = new ServerOptions(120_000, null, ServerLimits.DEFAULTS);

  public ServerOptions withPeerWaitMillis(long millis) {
    return new ServerOptions(millis, transport, limits);
  }

  public ServerOptions withTransport(Transport t) {
    return new ServerOptions(peerWaitMillis, t, limits);
  }

  public ServerOptions withLimits(ServerLimits l) {
    return new ServerOptions(peerWaitMillis, transport, l);
  }
}
