package dev.psflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * mnist-replica through local-cluster with a task killed mid-training and restarted (as in
 * docs/fault-tolerance.md). The kill is triggered by a training line past global step 350, not by
 * a time: on a loaded machine startup alone can take longer than a whole run elsewhere. The chief
 * checkpoints every 100 global steps, so the checkpoints before the kill (0, 100, 200, 300) and
 * the steps a restart may lose do not depend on the machine's speed either.
 */
class FaultToleranceIT {
  private static final Pattern STEP = Pattern.compile("^\\[(worker\\d+)\\] [0-9.]+: Worker \\d+: training step \\d+ "
      + "done \\(global step: (\\d+)\\)$");
  private static final Pattern SAVE = Pattern.compile("^\\[worker0\\] INFO CheckpointSaverHook - Saving checkpoints "
      + "for (\\d+) into ");
  private static final Pattern RESTORED = Pattern.compile("^\\[worker0\\] Worker 0: Restored model from checkpoint "
      + ".*model\\.ckpt-(\\d+)$");
  private static final String PAST_350 = "global step: 3[5-9][0-9]\\)";

  @TempDir Path logDir;

  @Test
  void aPsKilledAndRestartedMidRunLosesAtMostTheStepsSinceTheLastCheckpoint() throws Exception {
    PsflowProcess.Result r = PsflowProcess.run(600, "local-cluster", "--ps=1", "--workers=2", "--restart-on-failure",
        "--kill=ps0@after:" + PAST_350, "mnist-replica", "--train_steps=600", "--save_checkpoint_steps=100",
        "--log_dir=" + logDir);
    assertRecoveredFromPsRestart(r, "async");
    assertTrained(r);
  }

  @Test
  void inSyncModeAPsRestartAlsoBringsBackTheTokenQueueAndTheAccumulators() throws Exception {
    PsflowProcess.Result r = PsflowProcess.run(900, "local-cluster", "--ps=1", "--workers=2", "--restart-on-failure",
        "--kill=ps0@after:" + PAST_350, "mnist-replica", "--sync_replicas", "--num_gpus=0", "--train_steps=600",
        "--save_checkpoint_steps=100", "--log_dir=" + logDir);
    assertRecoveredFromPsRestart(r, "sync");
    assertThat(r.output()).containsPattern("\\[worker0\\] Worker 0: sync replicas: 2 of 2 replicas aggregated");
    assertTrained(r);
  }

  /**
   * Both workers noticed, the chief restored the last checkpoint written before the kill (or the
   * one before it when the kill cut that save short: the saver never restores an incomplete
   * checkpoint), and the steps lost are at most the steps since the checkpoint restored.
   */
  private static void assertRecoveredFromPsRestart(PsflowProcess.Result r, String mode) {
    assertThat(r.exitCode()).as(r.output()).isZero();
    assertThat(r.output()).contains("local-cluster: killing ps0 (--kill=ps0@after:")
        .contains("local-cluster: ps0 exited with code 137; restarting it")
        .contains("[worker0] After 600 training step(s), validation cross entropy = ")
        .contains("[worker1] After 600 training step(s), validation cross entropy = ");
    // Each worker: the highest global step it saw before it noticed the loss, then its recovery line.
    long beforeKill = -1;
    for (String w : List.of("worker0", "worker1")) {
      int lost = indexOf(r.lines(), "[" + w + "] Worker " + w.charAt(6) + ": lost /job:ps/replica:0/task:0 (");
      assertThat(lost).as("%s's recovery line in:%n%s", w, r.output()).isNotNegative();
      assertThat(r.lines().get(lost)).endsWith("; recovering");
      beforeKill = Math.max(beforeKill, maxStep(r.lines().subList(0, lost), w));
    }
    int chiefLost = indexOf(r.lines(), "[worker0] Worker 0: lost ");
    List<Long> saves = numbers(r.lines().subList(0, chiefLost), SAVE);
    List<Long> restores = numbers(r.lines().subList(chiefLost, r.lines().size()), RESTORED);
    assertThat(restores).as("the chief's restore after the ps restart").isNotEmpty();
    long restored = restores.get(0);
    long interval = maxGap(saves);
    long lost = beforeKill - restored;
    System.out.printf("FaultToleranceIT (%s): ps killed at global step %d, restored model.ckpt-%d: %d steps lost; "
        + "checkpoints before the kill at %s (at most %d steps apart)%n", mode, beforeKill, restored, lost, saves,
        interval);
    assertThat(saves.size()).as("checkpoints before the kill: %s", saves).isGreaterThanOrEqualTo(3);
    long last = saves.get(saves.size() - 1);
    long previous = saves.get(saves.size() - 2);
    assertThat(restored).isIn(last, previous);
    // Between the training line that triggered the kill and the ps's death, each worker may finish a
    // few more steps; they are lost with the rest.
    int afterTheTrigger = 20;
    assertThat(lost).isBetween(0L, (restored == last ? interval : 2 * interval) + afterTheTrigger);
  }

  @Test
  void aChiefKilledAndRestartedRestoresTheLatestCheckpointAndTrainingEnds() throws Exception {
    PsflowProcess.Result r = PsflowProcess.run(600, "local-cluster", "--ps=1", "--workers=2", "--restart-on-failure",
        "--kill=worker0@after:Worker 0: .*" + PAST_350, "mnist-replica", "--train_steps=600",
        "--save_checkpoint_steps=100", "--log_dir=" + logDir);
    assertThat(r.exitCode()).as(r.output()).isZero();
    assertThat(r.output()).contains("local-cluster: killing worker0 (--kill=worker0@after:")
        .contains("local-cluster: worker0 exited with code 137; restarting it")
        .doesNotContain("[worker1] Worker 1: lost "); // the other worker never talks to the chief's task
    int restart = indexOf(r.lines(), "local-cluster: worker0 exited with code 137; restarting it");
    List<Long> saves = numbers(r.lines().subList(0, restart), SAVE);
    List<Long> restores = numbers(r.lines(), RESTORED);
    assertThat(restores).as("the restarted chief's restore").hasSize(1);
    assertThat(restores.get(0)).isPositive().isIn(saves.get(saves.size() - 1), saves.get(saves.size() - 2));
    assertThat(indexOf(r.lines(), "[worker0] Worker 0: Restored model")).isGreaterThan(restart);
    assertTrained(r);
  }

  /**
   * A model that trained, not a bar on how well the example trains (DistributedTrainingIT and
   * SyncReplicasIT hold that): a restart replays the steps since the checkpoint, and the updates of
   * a worker that trained on while the chief was down are lost. Here 200 steps of the example
   * reached 0.93 and 1000 steps 0.95-0.97; an untrained or corrupted model scores near 0.1.
   */
  private static void assertTrained(PsflowProcess.Result r) {
    assertThat(PsflowProcess.valueAfter(r, "test accuracy = ")).isGreaterThanOrEqualTo(0.9);
  }

  private static int indexOf(List<String> lines, String prefix) {
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).startsWith(prefix)) {
        return i;
      }
    }
    return -1;
  }

  private static long maxStep(List<String> lines, String worker) {
    long max = -1;
    for (String l : lines) {
      Matcher m = STEP.matcher(l);
      if (m.matches() && m.group(1).equals(worker)) {
        max = Math.max(max, Long.parseLong(m.group(2)));
      }
    }
    return max;
  }

  private static List<Long> numbers(List<String> lines, Pattern p) {
    List<Long> found = new ArrayList<>();
    for (String l : lines) {
      Matcher m = p.matcher(l);
      if (m.find()) {
        found.add(Long.parseLong(m.group(1)));
      }
    }
    return found;
  }

  private static long maxGap(List<Long> steps) {
    long gap = 0;
    for (int i = 1; i < steps.size(); i++) {
      gap = Math.max(gap, steps.get(i) - steps.get(i - 1));
    }
    return gap;
  }
}
