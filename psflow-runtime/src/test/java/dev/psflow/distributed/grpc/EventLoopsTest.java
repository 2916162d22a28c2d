package dev.psflow.distributed.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.netty.shaded.io.netty.channel.EventLoop;
import org.junit.jupiter.api.Test;

/** Where a channel's I/O runs: on the server event loop that made it, when one did. */
class EventLoopsTest {
  @Test
  void aServerEventLoopIsTheLoopItsChannelsStayOn() throws Exception {
    EventLoop loop = (EventLoop) EventLoops.Defaults.WORKER.next();
    assertThat(loop.submit(EventLoops::servingLoop).get()).isSameAs(loop);
  }

  @Test
  void anyOtherThreadLeavesItsChannelsToTheChannelGroup() throws Exception {
    assertThat(EventLoops.servingLoop()).isNull();
    EventLoop channelLoop = (EventLoop) EventLoops.Defaults.CHANNELS.next();
    assertThat(channelLoop.submit(EventLoops::servingLoop).get()).isNull();
  }
}
