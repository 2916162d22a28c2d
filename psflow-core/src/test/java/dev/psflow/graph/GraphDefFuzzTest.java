package dev.psflow.graph;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.psflow.proto.TensorProto;
import dev.psflow.tensor.Tensor;

/**
 * Fuzzes the two decoders a peer's bytes reach first: GraphDef import (CreateSession,
 * ExtendSession, RegisterGraph, {@code --graph_def}) and TensorProto decoding (feeds, fetches,
 * Const values). The contract under test: any byte string either decodes or fails with an
 * IllegalArgumentException carrying a message; nothing else escapes (no other RuntimeException, no
 * OutOfMemoryError from a declared size, no StackOverflowError, no hang).
 *
 * <p>Under plain {@code mvn test} each method runs once per file of its committed corpus
 * ({@code src/test/resources/dev/psflow/graph/GraphDefFuzzTestInputs/<method>/}); with
 * {@code JAZZER_FUZZ=1} the selected method is fuzzed (see {@code bin/fuzz} and docs/security.md).
 */
class GraphDefFuzzTest {
  @FuzzTest(maxDuration = "5m")
  void importGraphDef(byte[] bytes) {
    try {
      Graph g = GraphDefs.fromBytes(bytes);
      // what imports must serialize and import again to the same bytes
      byte[] again = GraphDefs.toBytes(g);
      assertThat(GraphDefs.toBytes(GraphDefs.fromBytes(again))).isEqualTo(again);
    } catch (IllegalArgumentException e) {
      assertThat(e.getMessage()).isNotBlank();
    }
  }

  @FuzzTest(maxDuration = "5m")
  void tensorProto(byte[] bytes) {
    TensorProto p;
    try {
      p = TensorProto.parseFrom(bytes);
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      return;
    }
    try {
      Tensor t = TensorProtos.fromProto(p);
      assertThat(t.size()).isEqualTo(t.shape().numElements());
      assertThat(TensorProtos.fromProto(TensorProtos.toProto(t))).isEqualTo(t);
    } catch (IllegalArgumentException e) {
      assertThat(e.getMessage()).isNotBlank();
    }
  }
}
