package dev.psflow.bench.sidebyside;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The table: medians with their range, ratios psflow/TF, and psflow alone without the reference. */
class ReportTest {
  private static RunResult local(double stepsPerSec, double cpuSeconds, long rssMb, double seconds) {
    return new RunResult(1000, stepsPerSec, Map.of("local", new ProcessStats(cpuSeconds, rssMb * 1_000_000, seconds)),
        0, 0, seconds);
  }

  private static RunResult async(double stepsPerSec, double cpuEach, long wireBytes, long workerSteps) {
    Map<String, ProcessStats> p = new LinkedHashMap<>();
    for (String role : List.of("ps0", "worker0", "worker1")) {
      p.put(role, new ProcessStats(cpuEach, 500_000_000, 10));
    }
    return new RunResult(1000, stepsPerSec, p, wireBytes, workerSteps, 12);
  }

  private static Report.WorkloadRuns runs(Workload w, List<RunResult> psflow, List<RunResult> tf) {
    Map<String, List<RunResult>> m = new LinkedHashMap<>();
    m.put(Report.PSFLOW, psflow);
    if (tf != null) {
      m.put(Report.TENSORFLOW, tf);
    }
    return new Report.WorkloadRuns(w, m);
  }

  @Test
  void eachRowHasBothMediansWithTheirRangeAndTheRatio() {
    String t = Report.table(List.of(Report.PSFLOW, Report.TENSORFLOW), List.of(
        runs(Workload.LOCAL, List.of(local(300, 2, 1000, 9), local(200, 3, 1200, 11), local(250, 2.5, 1100, 10)),
            List.of(local(500, 1, 500, 5), local(520, 1.2, 480, 6), local(480, 1.1, 490, 5.5)))));
    assertThat(t).contains("local (one process)");
    assertThat(t).containsPattern("steps/sec \\(first 50 excluded\\) +250\\.0 \\(200\\.0–300\\.0\\) +500\\.0 "
        + "\\(480\\.0–520\\.0\\) +0\\.50×");
    assertThat(t).containsPattern("CPU ms per step +2\\.50 \\(2\\.00–3\\.00\\) +1\\.10 \\(1\\.00–1\\.20\\) +2\\.27×");
    assertThat(t).containsPattern("peak RSS MB +1100 \\(1000–1200\\) +490 \\(480–500\\) +2\\.24×");
    assertThat(t).containsPattern("launch to exit s +10\\.00 \\(9\\.00–11\\.00\\) +5\\.50 \\(5\\.00–6\\.00\\) +1\\.82×");
  }

  @Test
  void distributedRowsGoByRoleWithATotalAndTheWireAgainstTheIdeal() {
    String t = Report.table(List.of(Report.PSFLOW, Report.TENSORFLOW), List.of(
        runs(Workload.ASYNC, List.of(async(80, 3, 637_221_000L, 1000)), List.of(async(300, 1, 0, 0)))));
    assertThat(t).contains("async (1 ps + 2 workers)");
    assertThat(t).containsPattern("global steps/sec +80\\.0 +300\\.0 +0\\.27×");
    assertThat(t).containsPattern("CPU ms per global step, worker1 +3\\.00 +1\\.00 +3\\.00×");
    assertThat(t).containsPattern("CPU ms per global step, total +9\\.00 +3\\.00 +3\\.00×");
    assertThat(t).containsPattern("peak RSS MB, ps0 +500 +500 +1\\.00×");
    assertThat(t).containsPattern("wire bytes per worker step \\(ideal 636,080\\) +637,221 +n/a +1\\.0018× ideal");
    assertThat(t).contains("launch to exit s, whole job").contains("TensorFlow's wire bytes: n/a");
  }

  @Test
  void theMainJobIsTimedWholeWithoutRowsByProcess() {
    RunResult psflow = new RunResult(1000, 400, Map.of("job", new ProcessStats(13, 200_000_000, 6.8)), 0, 0, 6.8);
    String t = Report.table(List.of(Report.PSFLOW, Report.TENSORFLOW), List.of(
        runs(Workload.MAIN, List.of(psflow), List.of(async(500, 4, 0, 0)))));
    assertThat(t).contains("main job: the README's local-cluster command");
    assertThat(t).containsPattern("global steps/sec +400\\.0 +500\\.0 +0\\.80×");
    assertThat(t).containsPattern("CPU s, every process +13\\.00 +12\\.00 +1\\.08×");
    assertThat(t).containsPattern("launch to exit s, whole job +6\\.80 +12\\.00 +0\\.57×");
    assertThat(t).doesNotContain("peak RSS").doesNotContain("wire bytes").doesNotContain("TensorFlow's wire bytes");
  }

  @Test
  void withoutTheReferenceOnlyPsflowsColumnIsPrinted() {
    String t = Report.table(List.of(Report.PSFLOW), List.of(
        runs(Workload.ASYNC, List.of(async(80, 3, 637_221_000L, 1000)), null)));
    assertThat(t).doesNotContain("TensorFlow").doesNotContain("×,").doesNotContain("psflow/TF");
    assertThat(t).containsPattern("wire bytes per worker step \\(ideal 636,080\\) +637,221 = 1\\.0018× ideal");
    assertThat(t.lines().filter(l -> l.contains("global steps/sec")).findFirst().orElseThrow()).endsWith("80.0");
  }

  @Test
  void scalingRowsSayWhatTheReferenceCannotRun() {
    Map<String, RunResult> both = new LinkedHashMap<>();
    both.put(Report.PSFLOW, async(50, 4, 637_221_000L, 1000));
    both.put(Report.TENSORFLOW, async(200, 1, 0, 0));
    Map<String, RunResult> psflowOnly = Map.of(Report.PSFLOW, async(40, 5, 637_221_000L, 1000));
    String t = Report.scaling(List.of(Report.PSFLOW, Report.TENSORFLOW), List.of(
        new Report.ScalingRow(Workload.asyncWith(1, 100), both, Map.of()),
        new Report.ScalingRow(Workload.asyncWith(2, 100), psflowOnly,
            Map.of(Report.TENSORFLOW, "the reference runs one ps task only"))));
    assertThat(t).containsPattern("1 ps, 100 hidden units \\(79,510 parameters\\) +50\\.0 +200\\.0 +0\\.25× +12\\.00 "
        + "+3\\.00 +4\\.00× +1\\.0018");
    assertThat(t).containsPattern("2 ps, 100 hidden units \\(79,510 parameters\\) +40\\.0 +n/a +15\\.00 +n/a +1\\.0018");
    assertThat(t).contains("n/a: the reference runs one ps task only");
  }

  @Test
  void columnsLineUpAndAOneCellRowIsAHeading() {
    String t = Report.columns(List.of(new String[] {"", "a", "bb"}, new String[] {"heading"},
        new String[] {"row", "123", "4"}));
    assertThat(t).isEqualTo("          a   bb\nheading\n  row   123    4\n");
  }
}
