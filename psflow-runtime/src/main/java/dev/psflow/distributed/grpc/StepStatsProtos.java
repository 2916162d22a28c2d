package dev.psflow.distributed.grpc;

import dev.psflow.exec.StepStats;
import dev.psflow.proto.DeviceStepStats;
import dev.psflow.proto.NodeExecStats;
import dev.psflow.proto.RpcExecStats;

/** Step statistics to and from their wire messages (after TensorFlow's step_stats.proto). */
final class StepStatsProtos {
  private StepStatsProtos() {}

  static DeviceStepStats toProto(StepStats.DeviceStepStats d) {
    DeviceStepStats.Builder b = DeviceStepStats.newBuilder().setDevice(d.device());
    for (StepStats.NodeExecStats n : d.nodeStats()) {
      b.addNodeStats(NodeExecStats.newBuilder().setNodeName(n.nodeName()).setOpType(n.opType())
          .setAllStartMicros(n.allStartMicros()).setOpEndRelMicros(n.opEndRelMicros()).setOutputBytes(n.outputBytes()));
    }
    for (StepStats.RpcStats r : d.rpcStats()) {
      b.addRpcStats(RpcExecStats.newBuilder().setMethod(r.method()).setServed(r.side() == StepStats.Side.SERVER)
          .setPeer(r.peer()).setDetail(r.detail()).setStartMicros(r.startMicros())
          .setDurationMicros(r.durationMicros()).setBytes(r.bytes()));
    }
    return b.build();
  }

  static StepStats.DeviceStepStats fromProto(DeviceStepStats d) {
    return new StepStats.DeviceStepStats(d.getDevice(), d.getNodeStatsList().stream()
        .map(n -> new StepStats.NodeExecStats(n.getNodeName(), n.getOpType(), n.getAllStartMicros(),
            n.getOpEndRelMicros(), n.getOutputBytes()))
        .toList(), d.getRpcStatsList().stream()
        .map(r -> new StepStats.RpcStats(r.getMethod(), r.getServed() ? StepStats.Side.SERVER : StepStats.Side.CLIENT,
            r.getPeer(), r.getDetail(), r.getStartMicros(), r.getDurationMicros(), r.getBytes()))
        .toList());
  }
}
