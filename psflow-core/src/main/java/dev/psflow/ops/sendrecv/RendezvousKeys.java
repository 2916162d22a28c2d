package dev.psflow.ops.sendrecv;

import dev.psflow.graph.Operation;

/**
 * Rendezvous keys as TensorFlow writes them, {@code send_device;incarnation;recv_device;tensor_name;0:0};
 * the step is implied by the per-step rendezvous the key is used in.
 */
public final class RendezvousKeys {
  private RendezvousKeys() {}

  public static String of(Operation sendOrRecv) {
    return of(sendOrRecv.attrString("send_device"), sendOrRecv.attrString("recv_device"),
        sendOrRecv.attrString("tensor_name"));
  }

  public static String of(String sendDevice, String recvDevice, String tensorName) {
    return sendDevice + ";1;" + recvDevice + ";" + tensorName + ";0:0";
  }

  /** The sending device named in a key (where a remote Recv pulls from). */
  public static String sendDevice(String key) {
    return key.substring(0, key.indexOf(';'));
  }

  /** The receiving device named in a key (who pulls). */
  public static String recvDevice(String key) {
    int afterIncarnation = key.indexOf(';', key.indexOf(';') + 1) + 1;
    return key.substring(afterIncarnation, key.indexOf(';', afterIncarnation));
  }
}
