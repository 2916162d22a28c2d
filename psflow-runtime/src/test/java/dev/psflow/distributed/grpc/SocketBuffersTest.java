package dev.psflow.distributed.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.netty.shaded.io.netty.channel.AdaptiveRecvByteBufAllocator;
import org.junit.jupiter.api.Test;

/**
 * A connection takes a flow-control window's worth of bytes before Netty calls it unwritable, and
 * reads up to 1 MiB at a time.
 */
class SocketBuffersTest {
  @Test
  void byDefaultAConnectionBuffersOneFlowControlWindowAndIsWritableAgainAtHalf() {
    assertThat(GrpcTransport.WRITE_BUFFER.high()).isEqualTo(GrpcTransport.FLOW_CONTROL_WINDOW);
    assertThat(GrpcTransport.WRITE_BUFFER.low()).isEqualTo(GrpcTransport.FLOW_CONTROL_WINDOW / 2);
  }

  @Test
  void aReadTakesUpTo1MiB() {
    assertThat(GrpcTransport.READ_BUFFER).isInstanceOf(AdaptiveRecvByteBufAllocator.class);
    assertThat(GrpcTransport.readBuffer(0)).isNull();
  }

  @Test
  void zeroKeepsNettysDefault() {
    assertThat(GrpcTransport.writeBuffer(0)).isNull();
    assertThat(GrpcTransport.writeBuffer(1 << 20).high()).isEqualTo(1 << 20);
  }
}
