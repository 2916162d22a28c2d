package dev.psflow.distributed.grpc;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.psflow.exec.Code;
import dev.psflow.exec.StatusException;
import dev.psflow.tensor.Tensor;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Feeds and fetches over what one protobuf message holds are refused with what to do instead. */
class WholeMessagesTest {
  @Test
  void tensorsOverOneMessageAreResourceExhaustedNamingTheWayOut() {
    List<Tensor> feeds = List.of(Tensor.of(new float[100], 100), Tensor.of(new long[20], 20));
    assertThatCode(() -> WholeMessages.check("the feeds of RunStep", feeds, 560)).doesNotThrowAnyException();
    assertThatThrownBy(() -> WholeMessages.check("the feeds of RunStep", feeds, 559))
        .isInstanceOfSatisfying(StatusException.class, e -> org.assertj.core.api.Assertions.assertThat(e.code())
            .isEqualTo(Code.RESOURCE_EXHAUSTED))
        .hasMessage("the feeds of RunStep take 560 bytes, more than the 559 one message may carry: feeds and fetches "
            + "cross whole in one protobuf message (2 GiB at most), only tensors pulled between tasks go in chunks; "
            + "keep a tensor this large in a variable on a ps and use it there, or feed and fetch it in slices");
  }
}
