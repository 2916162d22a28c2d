package dev.psflow.bench.sidebyside;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The benchmark's table, as text: per workload, psflow's median (min–max), TensorFlow's, and the
 * ratio psflow/TF of the medians, for steps/sec, CPU per global step by process and in total,
 * peak RSS by process, wire bytes per worker step against the ideal, and launch to exit; then the
 * scaling section. Without TensorFlow only psflow's column. Pure: it formats what it is given.
 */
final class Report {
  static final String PSFLOW = "psflow";
  static final String TENSORFLOW = "TensorFlow";

  /** All runs of one workload, by system name ({@link #PSFLOW}, {@link #TENSORFLOW}), in run order. */
  record WorkloadRuns(Workload workload, Map<String, List<RunResult>> bySystem) {}

  /** One scaling row: the workload, each system's run (absent: not run; see {@code notRun}). */
  record ScalingRow(Workload workload, Map<String, RunResult> bySystem, Map<String, String> notRun) {}

  private Report() {}

  /** The main table for {@code systems} (psflow, and TensorFlow if it ran). */
  static String table(List<String> systems, List<WorkloadRuns> workloads) {
    boolean both = systems.size() > 1;
    List<String[]> rows = new ArrayList<>();
    rows.add(both ? new String[] {"", PSFLOW, TENSORFLOW, "psflow/TF"} : new String[] {"", PSFLOW});
    for (WorkloadRuns wr : workloads) {
      Workload w = wr.workload();
      rows.add(new String[] {w.title()});
      if (w.mainJob()) {
        // Whole jobs: psflow's is one command whose processes are not measured one by one.
        addRow(rows, systems, wr, "global steps/sec", RunResult::stepsPerSec, "%.1f");
        addRow(rows, systems, wr, "CPU s, every process", RunResult::totalCpuSeconds, "%.2f");
        addRow(rows, systems, wr, "launch to exit s, whole job", RunResult::jobSeconds, "%.2f");
        continue;
      }
      List<RunResult> first = wr.bySystem().get(PSFLOW);
      addRow(rows, systems, wr, w.distributed() ? "global steps/sec" : "steps/sec (first 50 excluded)",
          RunResult::stepsPerSec, "%.1f");
      for (String role : first.get(0).processes().keySet()) {
        addRow(rows, systems, wr, w.distributed() ? "CPU ms per global step, " + role : "CPU ms per step",
            r -> r.cpuMsPerStep(role), "%.2f");
      }
      if (w.distributed()) {
        addRow(rows, systems, wr, "CPU ms per global step, total", RunResult::totalCpuMsPerStep, "%.2f");
      }
      for (String role : first.get(0).processes().keySet()) {
        addRow(rows, systems, wr, w.distributed() ? "peak RSS MB, " + role : "peak RSS MB",
            r -> mb(r.processes().get(role)), "%.0f");
      }
      if (w.distributed()) {
        Spread bytes = spread(wr.bySystem().get(PSFLOW), RunResult::wireBytesPerStep);
        String[] row = new String[both ? 4 : 2];
        row[0] = String.format(Locale.ROOT, "wire bytes per worker step (ideal %,d)", w.idealWireBytesPerStep());
        row[1] = cell(bytes, "%,.0f");
        if (both) {
          row[2] = "n/a";
          row[3] = Double.isNaN(bytes.median()) ? "?" : String.format(Locale.ROOT, "%.4f× ideal", bytes.median()
              / w.idealWireBytesPerStep());
        } else if (!Double.isNaN(bytes.median())) {
          row[1] += String.format(Locale.ROOT, " = %.4f× ideal", bytes.median() / w.idealWireBytesPerStep());
        }
        rows.add(row);
      }
      addRow(rows, systems, wr, w.distributed() ? "launch to exit s, whole job" : "launch to exit s",
          RunResult::jobSeconds, "%.2f");
    }
    String table = columns(rows);
    if (both && workloads.stream().anyMatch(wr -> wr.workload().distributed() && !wr.workload().mainJob())) {
      table += "TensorFlow's wire bytes: n/a (no per-process count of its gRPC bytes; the loopback counters are "
          + "machine-wide).\n";
    }
    return table;
  }

  /** The scaling section: async global steps/sec and CPU per global step, one run per row. */
  static String scaling(List<String> systems, List<ScalingRow> scalingRows) {
    boolean both = systems.size() > 1;
    List<String[]> rows = new ArrayList<>();
    rows.add(both
        ? new String[] {"", "psflow steps/s", "TF steps/s", "psflow/TF", "psflow CPU ms", "TF CPU ms", "psflow/TF",
            "psflow wire/ideal"}
        : new String[] {"", "psflow steps/s", "psflow CPU ms", "psflow wire/ideal"});
    List<String> notes = new ArrayList<>();
    for (ScalingRow s : scalingRows) {
      Workload w = s.workload();
      String label = String.format(Locale.ROOT, "%d ps, %d hidden units (%,d parameters)", w.psTasks(),
          w.hiddenUnits(), w.parameters());
      RunResult p = s.bySystem().get(PSFLOW);
      RunResult t = s.bySystem().get(TENSORFLOW);
      String pRate = p == null ? "n/a" : fmt("%.1f", p.stepsPerSec());
      String pCpu = p == null ? "n/a" : fmt("%.2f", p.totalCpuMsPerStep());
      String wire = p == null ? "n/a" : fmt("%.4f", p.wireBytesPerStep() / w.idealWireBytesPerStep());
      if (!both) {
        rows.add(new String[] {label, pRate, pCpu, wire});
        continue;
      }
      String why = s.notRun().get(TENSORFLOW);
      if (why != null && !notes.contains("n/a: " + why)) {
        notes.add("n/a: " + why);
      }
      String tRate = t == null ? "n/a" : fmt("%.1f", t.stepsPerSec());
      String tCpu = t == null ? "n/a" : fmt("%.2f", t.totalCpuMsPerStep());
      String rateRatio = p == null || t == null ? "" : ratio(p.stepsPerSec(), t.stepsPerSec());
      String cpuRatio = p == null || t == null ? "" : ratio(p.totalCpuMsPerStep(), t.totalCpuMsPerStep());
      rows.add(new String[] {label, pRate, tRate, rateRatio, pCpu, tCpu, cpuRatio, wire});
    }
    StringBuilder out = new StringBuilder(columns(rows));
    notes.forEach(n -> out.append(n).append('\n'));
    return out.toString();
  }

  private static void addRow(List<String[]> rows, List<String> systems, WorkloadRuns wr, String label,
      ToDoubleFunction<RunResult> metric, String format) {
    String[] row = new String[systems.size() > 1 ? 4 : 2];
    row[0] = label;
    Spread[] s = new Spread[systems.size()];
    for (int i = 0; i < systems.size(); i++) {
      s[i] = spread(wr.bySystem().get(systems.get(i)), metric);
      row[i + 1] = cell(s[i], format);
    }
    if (systems.size() > 1) {
      row[3] = ratio(s[0].median(), s[1].median());
    }
    rows.add(row);
  }

  static Spread spread(List<RunResult> runs, ToDoubleFunction<RunResult> metric) {
    return Spread.of(runs == null ? List.of() : runs.stream().map(r -> metric.applyAsDouble(r)).toList());
  }

  /** {@code median (min–max)}, or the median alone for one run; {@code ?} when unknown. */
  static String cell(Spread s, String format) {
    if (Double.isNaN(s.median())) {
      return "?";
    }
    String median = fmt(format, s.median());
    return s.count() > 1 ? median + " (" + fmt(format, s.min()) + "–" + fmt(format, s.max()) + ")" : median;
  }

  static String ratio(double a, double b) {
    return Double.isNaN(a) || Double.isNaN(b) || b == 0 ? "?" : String.format(Locale.ROOT, "%.2f×", a / b);
  }

  private static double mb(ProcessStats p) {
    return p == null || p.peakRssBytes() < 0 ? Double.NaN : p.peakRssBytes() / 1e6;
  }

  private static String fmt(String format, double v) {
    return Double.isNaN(v) ? "?" : String.format(Locale.ROOT, format, v);
  }

  /**
   * Left-aligned first column, the others right-aligned, each as wide as its widest cell; a row
   * with one cell is a section heading.
   */
  static String columns(List<String[]> rows) {
    int n = rows.stream().mapToInt(r -> r.length).max().orElse(0);
    int[] width = new int[n];
    for (String[] r : rows) {
      for (int i = 0; i < r.length && r.length > 1; i++) {
        width[i] = Math.max(width[i], r[i].length() + (i == 0 ? 2 : 0));
      }
    }
    StringBuilder out = new StringBuilder();
    for (String[] r : rows) {
      if (r.length == 1) {
        out.append(r[0]).append('\n');
        continue;
      }
      StringBuilder line = new StringBuilder();
      line.append(String.format(Locale.ROOT, "%-" + width[0] + "s", r[0].isEmpty() ? "" : "  " + r[0]));
      for (int i = 1; i < r.length; i++) {
        line.append("   ").append(String.format(Locale.ROOT, "%" + width[i] + "s", r[i]));
      }
      out.append(line.toString().stripTrailing()).append('\n');
    }
    return out.toString();
  }
}
