package dev.psflow.exec.timeline;

import dev.psflow.exec.StepStats;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * TensorFlow's {@code timeline.Timeline} across tasks: the {@link StepStats} of traced steps as
 * Chrome Trace Event Format events, one process row per task ({@code /job:ps/task:0}, ...) and on
 * it thread rows for its kernels, its Recv ops (wait and transfer together, as the executor sees
 * them), the RPCs it made and the RPCs it served. A RecvTensor whose serving side reported it too
 * (a task reports the calls it serves while its part of the step runs) is split in two: the wait
 * (until the sender had the tensor) and the transfer (the rest). Every event
 * carries the step id in its args. Rows a client's steps take on other tasks are named after it
 * ("kernels · steps of worker 1"), so that traces of several workers merge without overlapping.
 * Timestamps are the tasks' wall clocks ({@link dev.psflow.exec.WallClock}), µs since the epoch.
 * Not thread-safe: one per tracing client.
 *
 * <pre>{@code
 * Timeline t = new Timeline("/job:worker/task:0");
 * t.add(run.metadata().stepStats(), Map.of("global_step", 101L));
 * TraceFile.write(Path.of("trace.json"), t.events(), 0);
 * }</pre>
 */
public final class Timeline {
  private static final String[] ROWS = {"kernels", "Recv ops (wait + transfer)", "RPCs made", "RPCs served"};
  private static final int KERNELS = 0;
  private static final int RECV_OPS = 1;
  private static final int RPCS_MADE = 2;
  private static final int RPCS_SERVED = 3;

  private record Span(String task, int row, String name, String cat, long ts, long dur, Map<String, Object> args,
      List<Span> children) {
    long end() {
      return ts + dur;
    }
  }

  private final String client;
  private final List<Span> spans = new ArrayList<>();

  /** @param client the task whose steps are added ({@code /job:worker/replica:0/task:0} or a device of it) */
  public Timeline(String client) {
    this.client = TaskRows.task(client);
  }

  /** Adds a traced step; {@code extraArgs} (e.g. {@code global_step}) go into every event's args. */
  public void add(StepStats step, Map<String, ?> extraArgs) {
    Map<String, StepStats.RpcStats> served = new HashMap<>();
    step.devStats().forEach(d -> d.rpcStats().stream().filter(r -> r.side() == StepStats.Side.SERVER)
        .forEach(r -> served.put(r.method() + " " + r.detail(), r)));
    for (StepStats.DeviceStepStats d : step.devStats()) {
      String task = TaskRows.task(d.device());
      for (StepStats.NodeExecStats n : d.nodeStats()) {
        Map<String, Object> args = args(step, extraArgs);
        args.put("name", n.nodeName());
        args.put("op", n.opType());
        args.put("output_bytes", n.outputBytes());
        boolean recv = n.opType().endsWith("Recv");
        spans.add(new Span(task, recv ? RECV_OPS : KERNELS, n.opType(), "Op", n.allStartMicros(),
            Math.max(1, n.opEndRelMicros()), args, List.of()));
      }
      for (StepStats.RpcStats r : d.rpcStats()) {
        Map<String, Object> args = args(step, extraArgs);
        args.put(r.side() == StepStats.Side.CLIENT ? "to" : "from", r.peer());
        args.put(r.method().equals("RecvTensor") ? "key" : "detail", r.detail());
        if (r.bytes() > 0) {
          args.put("bytes", r.bytes());
        }
        long dur = Math.max(1, r.durationMicros());
        if (r.side() == StepStats.Side.SERVER) {
          spans.add(new Span(task, RPCS_SERVED, r.method() + " wait", "RPC", r.startMicros(), dur, args, List.of()));
        } else {
          List<Span> parts = split(task, r, served.get(r.method() + " " + r.detail()), args);
          spans.add(new Span(task, RPCS_MADE, r.method(), "RPC", r.startMicros(), dur, args, parts));
        }
      }
    }
  }

  /** A RecvTensor call cut at the moment its server had the tensor: wait, then transfer (none if unknown). */
  private static List<Span> split(String task, StepStats.RpcStats call, StepStats.RpcStats served,
      Map<String, Object> args) {
    if (served == null) {
      return List.of();
    }
    long ready = served.startMicros() + served.durationMicros();
    long end = call.startMicros() + call.durationMicros();
    if (ready < call.startMicros() || ready > end) {
      return List.of(); // the clocks of the two tasks disagree more than the call lasted
    }
    return List.of(new Span(task, RPCS_MADE, "wait", "RPC", call.startMicros(), ready - call.startMicros(), args, List.of()),
        new Span(task, RPCS_MADE, "transfer", "RPC", ready, end - ready, args, List.of()));
  }

  private static Map<String, Object> args(StepStats step, Map<String, ?> extra) {
    Map<String, Object> a = new LinkedHashMap<>();
    a.put("step_id", step.stepId());
    a.putAll(extra);
    return a;
  }

  /** Whether any step was added. */
  public boolean isEmpty() {
    return spans.isEmpty();
  }

  /**
   * The trace events, each one JSON object: the metadata naming each process (task) and thread
   * row, then the complete ("X") events. Overlapping spans of one row go to sibling rows, as
   * Chrome's viewer wants a row's spans nested or apart.
   */
  public List<String> events() {
    List<Span> sorted = new ArrayList<>(spans);
    sorted.sort(Comparator.comparingLong(Span::ts).thenComparing(Comparator.comparingLong(Span::dur).reversed()));
    Map<String, List<Long>> laneEnds = new HashMap<>();
    Map<Integer, String> processes = new TreeMap<>();
    Map<List<Long>, String> threads = new TreeMap<>(Comparator.comparing((List<Long> k) -> k.get(0))
        .thenComparing(k -> k.get(1))); // (pid, tid) → row name
    List<String> out = new ArrayList<>();
    List<String> body = new ArrayList<>();
    for (Span s : sorted) {
      int pid = TaskRows.pid(s.task());
      List<Long> ends = laneEnds.computeIfAbsent(s.task() + "/" + s.row(), k -> new ArrayList<>());
      int lane = 0;
      while (lane < ends.size() && ends.get(lane) > s.ts()) {
        lane++;
      }
      if (lane == ends.size()) {
        ends.add(s.end());
      } else {
        ends.set(lane, s.end());
      }
      long tid = ((long) TaskRows.pid(client) * 10 + s.row()) * 100 + Math.min(lane, 99);
      processes.put(pid, s.task());
      threads.putIfAbsent(List.of((long) pid, tid), rowName(s.task(), s.row(), lane));
      body.add(complete(s, pid, tid));
      for (Span c : s.children()) {
        body.add(complete(c, pid, tid));
      }
    }
    processes.forEach((pid, task) -> {
      out.add(metadata("process_name", pid, 0, Map.of("name", task)));
      out.add(metadata("process_sort_index", pid, 0, Map.of("sort_index", pid)));
    });
    threads.forEach((key, name) -> {
      int pid = key.get(0).intValue();
      out.add(metadata("thread_name", pid, key.get(1), Map.of("name", name)));
      out.add(metadata("thread_sort_index", pid, key.get(1), Map.of("sort_index", key.get(1))));
    });
    out.addAll(body);
    return out;
  }

  /** The whole trace as one JSON document (TraceFile writes the same shape). */
  public String toJson() {
    return TraceFile.document(events());
  }

  private String rowName(String task, int row, int lane) {
    String name = ROWS[row] + (lane > 0 ? " " + (lane + 1) : "");
    return task.equals(client) ? name : name + " · steps of " + TaskRows.shortName(client);
  }

  private static String complete(Span s, int pid, long tid) {
    StringBuilder b = new StringBuilder(160);
    b.append("{\"ph\":\"X\",\"name\":");
    Json.string(b, s.name());
    b.append(",\"cat\":");
    Json.string(b, s.cat());
    b.append(",\"pid\":").append(pid).append(",\"tid\":").append(tid).append(",\"ts\":").append(s.ts())
        .append(",\"dur\":").append(Math.max(0, s.dur())).append(",\"args\":");
    Json.object(b, s.args());
    return b.append('}').toString();
  }

  private static String metadata(String name, int pid, long tid, Map<String, ?> args) {
    StringBuilder b = new StringBuilder(96);
    b.append("{\"ph\":\"M\",\"name\":\"").append(name).append("\",\"pid\":").append(pid).append(",\"tid\":").append(tid)
        .append(",\"args\":");
    Json.object(b, args);
    return b.append('}').toString();
  }
}
