package dev.psflow.distributed.grpc;

import dev.psflow.exec.StepStats;
import dev.psflow.proto.DeviceStepStats;
import dev.psflow.proto.NodeExecStats;

/** Step statistics to and from their wire messages (after TensorFlow's step_stats.proto). */
final class StepStatsProtos {
  private StepStatsProtos() {}

  static DeviceStepStats toProto(StepStats.DeviceStepStats d) {
    DeviceStepStats.Builder b = DeviceStepStats.newBuilder().setDevice(d.device());
    for (StepStats.NodeExecStats n : d.nodeStats()) {
      b.addNodeStats(NodeExecStats.newBuilder().setNodeName(n.nodeName()).setOpType(n.opType())
          .setAllStartMicros(n.allStartMicros()).setOpEndRelMicros(n.opEndRelMicros()).setOutputBytes(n.outputBytes()));
    }
    return b.build();
  }

  static StepStats.DeviceStepStats fromProto(DeviceStepStats d) {
    return new StepStats.DeviceStepStats(d.getDevice(), d.getNodeStatsList().stream()
        .map(n -> new StepStats.NodeExecStats(n.getNodeName(), n.getOpType(), n.getAllStartMicros(),
            n.getOpEndRelMicros(), n.getOutputBytes()))
        .toList());
  }
}
