package dev.psflow.bench.timeline;

import com.google.gson.GsonBuilder;
import com.google.gson.ToNumberPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Draws one step of a psflow Chrome trace ({@code mnist-replica --trace_steps=A:B --trace_file=F})
 * as an SVG timeline, a row per task and thread as ui.perfetto.dev shows them, and prints the
 * step's figures (time per task, each RecvTensor's bytes, wait and transfer). Reproducible: the
 * same trace gives the same picture. The step is the chief's run of the given global step, or
 * without one the chief's median-length traced run.
 *
 * <pre>
 * java -cp psflow-bench/target/psflow-bench.jar dev.psflow.bench.timeline.TraceSvg trace.json step.svg [GLOBAL_STEP]
 * </pre>
 */
public final class TraceSvg {
  private static final int WIDTH = 1400;
  private static final int LABEL = 330;
  private static final int BAR = 16;

  record Event(String name, int pid, long tid, long ts, long dur, Map<String, Object> args) {
    long end() {
      return ts + dur;
    }
  }

  private TraceSvg() {}

  public static void main(String[] a) throws IOException {
    if (a.length < 2) {
      System.err.println("usage: TraceSvg TRACE.json OUT.svg [GLOBAL_STEP]");
      System.exit(2);
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> doc = new GsonBuilder().setObjectToNumberStrategy(ToNumberPolicy.LONG_OR_DOUBLE).create()
        .fromJson(Files.readString(Path.of(a[0])), Map.class);
    Map<Integer, String> processes = new TreeMap<>();
    Map<String, String> threads = new HashMap<>();
    Map<Long, List<Event>> steps = new LinkedHashMap<>();
    for (Object o : (List<?>) doc.get("traceEvents")) {
      @SuppressWarnings("unchecked")
      Map<String, Object> e = (Map<String, Object>) o;
      @SuppressWarnings("unchecked")
      Map<String, Object> args = (Map<String, Object>) e.get("args");
      int pid = ((Number) e.get("pid")).intValue();
      long tid = ((Number) e.get("tid")).longValue();
      if ("M".equals(e.get("ph")) && "process_name".equals(e.get("name"))) {
        processes.put(pid, (String) args.get("name"));
      } else if ("M".equals(e.get("ph")) && "thread_name".equals(e.get("name"))) {
        threads.put(pid + "/" + tid, (String) args.get("name"));
      } else if ("X".equals(e.get("ph"))) {
        steps.computeIfAbsent(((Number) args.get("step_id")).longValue(), k -> new ArrayList<>())
            .add(new Event((String) e.get("name"), pid, tid, ((Number) e.get("ts")).longValue(),
                ((Number) e.get("dur")).longValue(), args));
      }
    }
    List<Event> step = pick(steps, processes, a.length > 2 ? Long.parseLong(a[2]) : -1);
    Files.writeString(Path.of(a[1]), svg(step, processes, threads));
    summary(step, processes);
  }

  /** The chief's run of {@code globalStep}, or (-1) the chief's median-length run. */
  private static List<Event> pick(Map<Long, List<Event>> steps, Map<Integer, String> processes, long globalStep) {
    List<List<Event>> chiefs = new ArrayList<>();
    for (List<Event> s : steps.values()) {
      boolean chief = s.stream().anyMatch(e -> e.name().equals("RunGraph")
          && "/job:worker/task:0".equals(processes.get(e.pid())));
      if (chief && (globalStep < 0 || ((Number) s.get(0).args().get("global_step")).longValue() == globalStep)) {
        chiefs.add(s);
      }
    }
    if (chiefs.isEmpty()) {
      throw new IllegalArgumentException("no run of the chief (worker 0)" + (globalStep < 0 ? "" : " at global step "
          + globalStep) + " in the trace");
    }
    chiefs.sort(Comparator.comparingLong(TraceSvg::span));
    return chiefs.get(chiefs.size() / 2);
  }

  private static long start(List<Event> s) {
    return s.stream().mapToLong(Event::ts).min().orElse(0);
  }

  private static long span(List<Event> s) {
    return s.stream().mapToLong(Event::end).max().orElse(0) - start(s);
  }

  private static String svg(List<Event> step, Map<Integer, String> processes, Map<String, String> threads) {
    long t0 = start(step);
    double scale = (WIDTH - LABEL - 20) / (double) Math.max(1, span(step));
    Map<String, List<Event>> rows = new TreeMap<>(Comparator.comparing((String k) -> Integer.parseInt(k.split("/")[0]))
        .thenComparing(k -> Long.parseLong(k.split("/")[1])));
    step.forEach(e -> rows.computeIfAbsent(e.pid() + "/" + e.tid(), k -> new ArrayList<>()).add(e));
    StringBuilder body = new StringBuilder();
    int y = 60;
    int lastPid = -1;
    for (Map.Entry<String, List<Event>> row : rows.entrySet()) {
      List<Event> evs = new ArrayList<>(row.getValue());
      evs.sort(Comparator.comparingLong(Event::ts).thenComparing(Comparator.comparingLong(Event::dur).reversed()));
      int pid = evs.get(0).pid();
      if (pid != lastPid) {
        y += 8;
        body.append(text(8, y + 12, processes.getOrDefault(pid, "pid " + pid), "task"));
        y += 18;
        lastPid = pid;
      }
      // depth by nesting: a RecvTensor's wait and transfer sit under it
      List<Long> stack = new ArrayList<>();
      int maxDepth = 0;
      StringBuilder bars = new StringBuilder();
      for (Event e : evs) {
        while (!stack.isEmpty() && stack.get(stack.size() - 1) <= e.ts()) {
          stack.remove(stack.size() - 1);
        }
        int depth = stack.size();
        stack.add(e.end());
        maxDepth = Math.max(maxDepth, depth);
        double x = LABEL + (e.ts() - t0) * scale;
        double w = Math.max(0.8, e.dur() * scale);
        int by = y + depth * (BAR + 2);
        bars.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\">"
            + "<title>%s</title></rect>%n", x, by, w, BAR, color(e.name()), escape(tooltip(e))));
        String label = label(e);
        if (w > label.length() * 6.2 + 4) {
          bars.append(text(x + 2, by + 12, label, "bar"));
        }
      }
      body.append(text(24, y + 12, threads.getOrDefault(row.getKey(), row.getKey()), "row"));
      body.append(bars);
      y += (maxDepth + 1) * (BAR + 2) + 4;
    }
    StringBuilder svg = new StringBuilder();
    int height = y + 40;
    svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
        + "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">%n", WIDTH, height, WIDTH, height));
    svg.append("<style>.task{font-size:13px;font-weight:bold}.row{font-size:11px;fill:#333}"
        + ".bar{font-size:10px;fill:#000}.axis{font-size:10px;fill:#555}</style>\n");
    svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    Event any = step.get(0);
    svg.append(text(8, 20, String.format(Locale.ROOT, "step_id %s, global step %s: %.1f ms from the first event to the "
        + "last (hover a bar for its op, key, bytes)", any.args().get("step_id"), any.args().get("global_step"),
        span(step) / 1000.0), "task"));
    axis(svg, span(step), scale, height);
    svg.append(body);
    return svg.append("</svg>\n").toString();
  }

  private static void axis(StringBuilder svg, long span, double scale, int height) {
    double ms = span / 1000.0;
    double tick = ms > 200 ? 50 : ms > 100 ? 20 : ms > 40 ? 10 : ms > 20 ? 5 : ms > 8 ? 2 : 1;
    for (double t = 0; t <= ms; t += tick) {
      double x = LABEL + t * 1000 * scale;
      svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"40\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>%n",
          x, x, height - 30));
      svg.append(text(x - 6, 52, String.format(Locale.ROOT, "%.0f ms", t), "axis"));
    }
  }

  private static String color(String name) {
    return switch (name) {
      case "MatMul" -> "#4e79a7";
      case "ResourceApplyAdam" -> "#f28e2b";
      case "_Recv" -> "#bab0ac";
      case "_Send" -> "#d4a6c8";
      case "RunGraph" -> "#edc948";
      case "RecvTensor" -> "#b07aa1";
      case "RecvTensor wait", "wait" -> "#ff9d9a";
      case "transfer" -> "#59a14f";
      default -> "#76b7b2";
    };
  }

  private static String label(Event e) {
    Object key = e.args().get("key");
    if (e.name().equals("RecvTensor") && key != null) {
      return "RecvTensor " + tensor((String) key);
    }
    return e.name();
  }

  /** {@code send;1;recv;hid_w/read:0;0:0} → {@code hid_w/read:0}. */
  static String tensor(String key) {
    String[] p = key.split(";");
    return p.length > 3 ? p[3] : key;
  }

  private static String tooltip(Event e) {
    StringBuilder b = new StringBuilder(e.name()).append(String.format(Locale.ROOT, " %d µs", e.dur()));
    e.args().forEach((k, v) -> b.append("\n").append(k).append(": ").append(v));
    return b.toString();
  }

  private static String text(double x, int y, String s, String cls) {
    return String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" class=\"%s\">%s</text>%n", x, y, cls, escape(s));
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }

  /** The step's figures, for a person (and the docs). */
  private static void summary(List<Event> step, Map<Integer, String> processes) {
    Event any = step.get(0);
    System.out.printf(Locale.ROOT, "step_id %s, global step %s: %d µs from the first event to the last%n",
        any.args().get("step_id"), any.args().get("global_step"), span(step));
    Map<Integer, long[]> kernels = new TreeMap<>();
    for (Event e : step) {
      if (e.args().containsKey("op") && !e.name().endsWith("Recv")) {
        long[] k = kernels.computeIfAbsent(e.pid(), p -> new long[2]);
        k[0] += e.dur();
        k[1]++;
      }
    }
    kernels.forEach((pid, k) -> System.out.printf(Locale.ROOT, "  %s: %d kernels, %d µs in kernels%n",
        processes.get(pid), k[1], k[0]));
    List<Event> sorted = new ArrayList<>(step);
    sorted.sort(Comparator.comparingLong(Event::ts));
    for (Event e : sorted) {
      if (e.name().equals("RunGraph")) {
        System.out.printf(Locale.ROOT, "  %s: RunGraph on %s %d µs%n", processes.get(e.pid()), e.args().get("to"),
            e.dur());
      } else if (e.name().equals("RecvTensor")) {
        long wait = child(step, e, "wait");
        long transfer = child(step, e, "transfer");
        System.out.printf(Locale.ROOT, "  %s: RecvTensor %s from %s: %s bytes, %d µs (wait %d, transfer %d)%n",
            processes.get(e.pid()), tensor((String) e.args().get("key")), e.args().get("to"), e.args().get("bytes"),
            e.dur(), wait, transfer);
      }
    }
  }

  private static long child(List<Event> step, Event parent, String name) {
    return step.stream().filter(e -> e.name().equals(name) && e.pid() == parent.pid() && e.tid() == parent.tid()
        && e.ts() >= parent.ts() && e.end() <= parent.end() && e.args().get("key").equals(parent.args().get("key")))
        .mapToLong(Event::dur).findFirst().orElse(-1);
  }
}
