package dev.psflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.psflow.distributed.WorkerClient.AccumulatorInfo;
import dev.psflow.distributed.WorkerClient.ReplicaSeen;
import dev.psflow.distributed.WorkerClient.WorkerStatus;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** psflow status's table: a row per task (up or why not), then each worker's last step and when it was heard from. */
class StatusTableTest {
  @Test
  void tasksThenWorkers() {
    String w0 = "/job:worker/replica:0/task:0";
    String w1 = "/job:worker/replica:0/task:1";
    WorkerStatus ps = new WorkerStatus("/job:ps/replica:0/task:0", List.of(), 0xabcL, 412, 3, Map.of("sync_token_q", 1),
        List.of(new AccumulatorInfo("a", 1, 412, 2), new AccumulatorInfo("b", 1, 412, 1)),
        List.of(new ReplicaSeen(w0, 412, 9_900), new ReplicaSeen(w1, 411, 1_000)), 10_000);
    WorkerStatus worker0 = new WorkerStatus(w0, List.of(), 0xdefL, -1, 1, Map.of(), List.of(), List.of(), 10_000);
    String table = StatusTable.format(List.of(
        new StatusTable.Answer(ps.task(), "127.0.0.1:2222", ps, null),
        new StatusTable.Answer(w0, "127.0.0.1:2223", worker0, null),
        new StatusTable.Answer(w1, "127.0.0.1:2224", null, "UNAVAILABLE connection refused")), List.of(w0, w1));
    assertThat(table).isEqualTo("""
        TASK                          ADDRESS         UP                                  INCARNATION       GLOBAL STEP  LIVE STEPS  QUEUES          ACCUMULATORS
        /job:ps/replica:0/task:0      127.0.0.1:2222  up                                  0000000000000abc  412          3           sync_token_q=1  2 at step 412: 1 gradient(s) each, 3 stale dropped
        /job:worker/replica:0/task:0  127.0.0.1:2223  up                                  0000000000000def  -            1           -               -
        /job:worker/replica:0/task:1  127.0.0.1:2224  no: UNAVAILABLE connection refused

        WORKER                        LAST STEP SEEN  LAST HEARD
        /job:worker/replica:0/task:0  412             0.1 s ago
        /job:worker/replica:0/task:1  411             9.0 s ago
        """);
  }
}
