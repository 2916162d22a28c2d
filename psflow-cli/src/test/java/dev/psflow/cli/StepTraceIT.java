package dev.psflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --trace_steps=100:105 --trace_file=FILE} on a real cluster (ps and two worker processes
 * through local-cluster): FILE is one Chrome Trace Event JSON document with a process row per task
 * and, on them, kernels, RecvTensor calls (made, split into wait and transfer, and served), RunGraph
 * calls, each with the step id and the global step. (JSON parsed by Gson, which gRPC brings.)
 */
class StepTraceIT {
  @Test
  void tracingSteps100To105WritesOneTraceWithARowPerTask(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("trace.json");
    PsflowProcess.Result r = PsflowProcess.run(300, "local-cluster", "--ps=1", "--workers=2", "mnist-replica",
        "--train_steps=106", "--trace_steps=100:105", "--trace_file=" + file);
    assertThat(r.exitCode()).as(r.output()).isZero();
    assertThat(r.output()).containsPattern("\\[worker[01]\\] Worker [01]: added the trace of \\d+ run\\(s\\) in global "
        + "steps 100\\.\\.105 to ")
        // TensorFlow's lines stay as they were; a plain progress line joins them (no terminal here)
        .containsPattern("\\[worker0\\] \\d+\\.\\d+: Worker 0: training step \\d+ done \\(global step: \\d+\\)")
        .containsPattern("\\[worker0\\] global step \\d+/106  loss ");

    JsonObject doc = JsonParser.parseString(Files.readString(file)).getAsJsonObject();
    List<JsonObject> events = new ArrayList<>();
    doc.getAsJsonArray("traceEvents").forEach(e -> events.add(e.getAsJsonObject()));
    Map<Integer, String> processes = new HashMap<>();
    for (JsonObject e : events) {
      assertThat(e.get("ph").getAsString()).as(e.toString()).isIn("M", "X");
      assertThat(e.has("pid") && e.has("tid") && e.has("name")).as(e.toString()).isTrue();
      if (e.get("name").getAsString().equals("process_name")) {
        String task = e.getAsJsonObject("args").get("name").getAsString();
        assertThat(processes.put(e.get("pid").getAsInt(), task)).as("one pid per task").isIn(null, task);
      }
    }
    assertThat(processes.values()).containsExactlyInAnyOrder("/job:ps/task:0", "/job:worker/task:0", "/job:worker/task:1");

    List<JsonObject> spans = events.stream().filter(e -> e.get("ph").getAsString().equals("X")).toList();
    Set<String> tasksWithKernels = new HashSet<>();
    Set<Long> globalSteps = new HashSet<>();
    for (JsonObject e : spans) {
      assertThat(e.get("ts").getAsLong()).isGreaterThan(1_600_000_000_000_000L); // wall clock, µs
      assertThat(e.get("dur").getAsLong()).isNotNegative();
      JsonObject args = e.getAsJsonObject("args");
      assertThat(args.get("step_id").getAsLong()).as(e.toString()).isNotZero();
      globalSteps.add(args.get("global_step").getAsLong());
      if (e.get("cat").getAsString().equals("Op") && !e.get("name").getAsString().endsWith("Recv")) {
        tasksWithKernels.add(processes.get(e.get("pid").getAsInt()));
      }
    }
    assertThat(tasksWithKernels).containsExactlyInAnyOrder("/job:ps/task:0", "/job:worker/task:0", "/job:worker/task:1");
    // A run is traced when the global step its worker last saw is 99..104; the other worker may move it on meanwhile.
    assertThat(globalSteps).allMatch(s -> s >= 100).anyMatch(s -> s <= 105);
    assertThat(names(spans)).contains("MatMul", "ResourceApplyAdam", "_Recv", "RecvTensor", "RecvTensor wait", "wait",
        "transfer", "RunGraph");
    // a worker's RecvTensor of a ps variable names the key and the bytes that came
    JsonObject recv = spans.stream().filter(e -> e.get("name").getAsString().equals("RecvTensor")
        && e.getAsJsonObject("args").get("to").getAsString().startsWith("/job:ps")).findFirst().orElseThrow();
    assertThat(recv.getAsJsonObject("args").get("key").getAsString()).contains(";1;/job:worker/");
    assertThat(recv.getAsJsonObject("args").get("bytes").getAsLong()).isPositive();
  }

  private static Set<String> names(List<JsonObject> spans) {
    Set<String> names = new HashSet<>();
    spans.stream().map(e -> e.get("name")).map(JsonElement::getAsString).forEach(names::add);
    return names;
  }
}
