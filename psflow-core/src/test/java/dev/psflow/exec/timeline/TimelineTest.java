package dev.psflow.exec.timeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.psflow.exec.StepStats;
import dev.psflow.exec.StepStats.DeviceStepStats;
import dev.psflow.exec.StepStats.NodeExecStats;
import dev.psflow.exec.StepStats.RpcStats;
import dev.psflow.exec.StepStats.Side;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A traced step becomes Chrome Trace Event JSON: a process row per task, the step id on every event. */
class TimelineTest {
  private static final String PS = "/job:ps/replica:0/task:0/device:CPU:0";
  private static final String W0 = "/job:worker/replica:0/task:0/device:CPU:0";
  private static final String W1 = "/job:worker/replica:0/task:1/device:CPU:0";
  private static final String KEY = PS + ";1;" + W0 + ";hid_w/read:0;0:0";

  /** Worker 0 pulls hid_w from the ps: asked at 1000 µs, the ps had it at 1300, it arrived at 1500. */
  private static StepStats step() {
    return new StepStats(42, List.of(
        new DeviceStepStats(W0, List.of(new NodeExecStats("MatMul", "MatMul", 1600, 200, 4000),
            new NodeExecStats("hid_w/_recv", "_Recv", 1000, 500, 313600)),
            List.of(new RpcStats("RecvTensor", Side.CLIENT, "/job:ps/replica:0/task:0", KEY, 1000, 500, 313600),
                new RpcStats("RunGraph", Side.CLIENT, "/job:ps/replica:0/task:0", "graph", 990, 900, 0))),
        new DeviceStepStats(PS, List.of(new NodeExecStats("hid_w/read", "ReadVariableOp", 1290, 10, 313600)),
            List.of(new RpcStats("RecvTensor", Side.SERVER, "/job:worker/replica:0/task:0", KEY, 1100, 200, 313600)))));
  }

  @Test
  void eachTaskIsAProcessRowAndEveryEventCarriesTheStepId() {
    Timeline t = new Timeline(W0);
    t.add(step(), Map.of("global_step", 101L));
    List<String> events = t.events();
    assertThat(events).contains(
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1000,\"tid\":0,\"args\":{\"name\":\"/job:ps/task:0\"}}",
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":3000,\"tid\":0,\"args\":{\"name\":\"/job:worker/task:0\"}}");
    assertThat(events.stream().filter(e -> e.startsWith("{\"ph\":\"X\"")))
        .hasSize(8) // 3 ops, RecvTensor with its wait and transfer, RunGraph, the ps' wait
        .allMatch(e -> e.contains("\"step_id\":42,\"global_step\":101"));
    // the ps' rows are named after the worker whose steps they show, so workers' traces merge apart
    assertThat(String.join("\n", events)).contains("\"name\":\"kernels · steps of worker 0\"");
  }

  @Test
  void aRecvTensorIsSplitIntoTheWaitForTheTensorAndItsTransfer() {
    Timeline t = new Timeline(W0);
    t.add(step(), Map.of());
    String all = String.join("\n", t.events());
    assertThat(all).containsPattern("\"name\":\"RecvTensor\",\"cat\":\"RPC\",\"pid\":3000,[^\\n]*\"ts\":1000,\"dur\":500")
        .containsPattern("\"name\":\"wait\",[^\\n]*\"ts\":1000,\"dur\":300")
        .containsPattern("\"name\":\"transfer\",[^\\n]*\"ts\":1300,\"dur\":200")
        .containsPattern("\"name\":\"RecvTensor wait\",\"cat\":\"RPC\",\"pid\":1000,[^\\n]*\"ts\":1100,\"dur\":200")
        .contains("\"key\":\"" + KEY + "\"", "\"bytes\":313600");
  }

  @Test
  void overlappingOpsOfOneTaskGoToSiblingRows() {
    Timeline t = new Timeline(W0);
    t.add(new StepStats(7, List.of(new DeviceStepStats(W0, List.of(new NodeExecStats("a", "MatMul", 100, 50, 0),
        new NodeExecStats("b", "MatMul", 120, 50, 0), new NodeExecStats("c", "Relu", 200, 5, 0))))), Map.of());
    String all = String.join("\n", t.events());
    assertThat(all).containsPattern("\"name\":\"a\",\"op\"").contains("\"tid\":3000000,\"ts\":100", "\"tid\":3000001,\"ts\":120",
        "\"tid\":3000000,\"ts\":200", "\"name\":\"kernels 2\"");
  }

  @Test
  void workersOfOneRunAddToOneFileAndAPreviousRunsFileIsReplaced(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("trace.json");
    Files.writeString(file, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n{\"old\":1}\n]}\n");
    long now = System.currentTimeMillis();
    Files.setLastModifiedTime(file, java.nio.file.attribute.FileTime.fromMillis(now - 60_000));
    Timeline w0 = new Timeline(W0);
    w0.add(step(), Map.of());
    Timeline w1 = new Timeline(W1);
    w1.add(new StepStats(43, List.of(new DeviceStepStats(W1, List.of(new NodeExecStats("m", "MatMul", 5, 5, 0))))),
        Map.of());
    TraceFile.write(file, w0.events(), now - 1000);
    TraceFile.write(file, w1.events(), now - 1000);
    String text = Files.readString(file);
    assertThat(text).doesNotContain("\"old\"").startsWith("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n")
        .endsWith("\n]}\n").contains("\"step_id\":42", "\"step_id\":43", "/job:worker/task:1");
    assertThat(text.lines().skip(1).filter(l -> l.startsWith("{")).count())
        .isEqualTo(w0.events().size() + w1.events().size());
    assertThat(text.lines().skip(1).filter(l -> l.startsWith("{")).allMatch(l -> l.endsWith("},") || l.endsWith("}")))
        .isTrue();
  }
}
