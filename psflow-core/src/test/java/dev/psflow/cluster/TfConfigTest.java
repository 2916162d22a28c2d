package dev.psflow.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** TF_CONFIG as Kubeflow's training operator writes it, and the chief job folded into the workers. */
class TfConfigTest {
  /** Byte for byte what the operator's genTFConfigJSONStr marshals for worker 1 of TFJob "mnist" in "default". */
  private static final String OPERATOR_WORKER_1 = "{\"cluster\":{\"chief\":[\"mnist-chief-0.default.svc:2222\"],"
      + "\"ps\":[\"mnist-ps-0.default.svc:2222\"],\"worker\":[\"mnist-worker-0.default.svc:2222\","
      + "\"mnist-worker-1.default.svc:2222\"]},\"task\":{\"type\":\"worker\",\"index\":1},\"environment\":\"cloud\"}";

  @Test
  void theOperatorsJsonParsesAndItsEnvironmentKeyIsIgnored() {
    TfConfig t = TfConfig.parse(OPERATOR_WORKER_1);
    assertThat(t.cluster().jobs()).containsExactly("chief", "ps", "worker");
    assertThat(t.taskType()).isEqualTo("worker");
    assertThat(t.taskIndex()).isEqualTo(1);
  }

  @Test
  void theChiefBecomesWorkerZeroAndTheWorkersFollow() {
    TfConfig worker1 = TfConfig.parse(OPERATOR_WORKER_1).withChiefAsWorkerZero();
    assertThat(worker1.cluster().jobs()).containsExactly("ps", "worker");
    assertThat(worker1.cluster().tasks("worker")).containsExactly("mnist-chief-0.default.svc:2222",
        "mnist-worker-0.default.svc:2222", "mnist-worker-1.default.svc:2222");
    assertThat(worker1.taskType()).isEqualTo("worker");
    assertThat(worker1.taskIndex()).isEqualTo(2);

    TfConfig chief = TfConfig.parse(OPERATOR_WORKER_1.replace("{\"type\":\"worker\",\"index\":1}",
        "{\"type\":\"chief\",\"index\":0}")).withChiefAsWorkerZero();
    assertThat(chief.taskType()).isEqualTo("worker");
    assertThat(chief.taskIndex()).isZero();
    assertThat(chief.cluster()).isEqualTo(worker1.cluster());

    TfConfig ps = TfConfig.parse(OPERATOR_WORKER_1.replace("{\"type\":\"worker\",\"index\":1}",
        "{\"type\":\"ps\",\"index\":0}")).withChiefAsWorkerZero();
    assertThat(ps.taskType()).isEqualTo("ps");
    assertThat(ps.taskIndex()).isZero();
    assertThat(ps.cluster()).isEqualTo(worker1.cluster());
  }

  @Test
  void aMasterJobIsTheChiefToo() {
    TfConfig t = TfConfig.parse("""
        {"cluster": {"master": ["m:1"], "ps": ["p:1"]}, "task": {"type": "master", "index": 0}}""")
        .withChiefAsWorkerZero();
    assertThat(t.cluster().tasks("worker")).isEqualTo(List.of("m:1"));
    assertThat(t.taskType()).isEqualTo("worker");
    assertThat(t.taskIndex()).isZero();
  }

  @Test
  void withoutAChiefNothingChanges() {
    TfConfig t = TfConfig.parse("""
        {"cluster": {"ps": ["p:1"], "worker": ["w:1"]}, "task": {"type": "worker", "index": 0}}""");
    assertThat(t.withChiefAsWorkerZero()).isEqualTo(t);
  }

  @Test
  void moreThanOneChiefIsRefused() {
    assertThatThrownBy(() -> TfConfig.parse("""
        {"cluster": {"chief": ["c:1", "c:2"], "ps": ["p:1"]}}""").withChiefAsWorkerZero())
        .hasMessage("TF_CONFIG job 'chief' has 2 tasks: the chief is one task");
  }
}
