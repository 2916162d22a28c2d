package dev.psflow.ops.nn;

import dev.psflow.graph.Operand;
import dev.psflow.graph.Output;
import dev.psflow.graph.Scope;
import dev.psflow.ops.OpDef;
import dev.psflow.ops.Ops;
import java.util.List;

/**
 * The nn ops of the {@link Ops} facade (TensorFlow's {@code tf.nn}): dense layers, activations,
 * softmax and the losses. Each default method builds one op through its declaration.
 *
 * <pre>{@code
 * Output hidden = tf.relu(tf.xwPlusB(x, w, b));
 * Output loss = tf.softmaxCrossEntropyWithLogits(labels, tf.matMul(hidden, smW));
 * }</pre>
 */
public interface NnOps {
  /** Every op type of this family, for the {@link dev.psflow.ops.OpRegistry}. */
  static List<OpDef> definitions() {
    return List.of(MatMul.DEF, BiasAdd.DEF, BiasAddGrad.DEF, Relu.DEF, ReluGrad.DEF,
        Softmax.SOFTMAX, Softmax.LOG_SOFTMAX, SoftmaxCrossEntropyWithLogits.DEF,
        SparseSoftmaxCrossEntropyWithLogits.DEF, L2Loss.DEF);
  }

  Scope scope();

  Ops tf();

  /** {@code a · b} for rank-2 matrices. */
  default Output matMul(Operand a, Operand b) {
    return MatMul.create(scope(), a, b, false, false);
  }

  /** {@code op(a) · op(b)}, where op transposes when the flag is set (no Transpose op is built). */
  default Output matMul(Operand a, Operand b, boolean transposeA, boolean transposeB) {
    return MatMul.create(scope(), a, b, transposeA, transposeB);
  }

  /** {@code value [..., C] + bias [C]}. */
  default Output biasAdd(Operand value, Operand bias) {
    return BiasAdd.create(scope(), value, bias);
  }

  /** {@code x · w + b}, as {@code tf.nn.xw_plus_b}: MatMul then BiasAdd. */
  default Output xwPlusB(Operand x, Operand w, Operand b) {
    return BiasAdd.create(scope(), MatMul.create(tf().scope(), x, w, false, false), b);
  }

  default Output relu(Operand features) {
    return Relu.create(scope(), features);
  }

  /** Softmax over the last axis. */
  default Output softmax(Operand logits) {
    return Softmax.SOFTMAX.create(scope(), logits);
  }

  /** Log-softmax over the last axis. */
  default Output logSoftmax(Operand logits) {
    return Softmax.LOG_SOFTMAX.create(scope(), logits);
  }

  /**
   * Per-example cross-entropy {@code [batch]} between {@code labels} (a distribution per row) and
   * softmax({@code logits}), as {@code tf.nn.softmax_cross_entropy_with_logits}: the loss output
   * of the fused op.
   */
  default Output softmaxCrossEntropyWithLogits(Operand labels, Operand logits) {
    return SoftmaxCrossEntropyWithLogits.create(scope(), logits, labels).output(0);
  }

  /**
   * Per-example cross-entropy {@code [batch]} for class indices {@code labels [batch]} (int32 or
   * int64), as {@code tf.nn.sparse_softmax_cross_entropy_with_logits}.
   */
  default Output sparseSoftmaxCrossEntropyWithLogits(Operand labels, Operand logits) {
    return SparseSoftmaxCrossEntropyWithLogits.create(scope(), logits, labels).output(0);
  }

  /** {@code sum(t²) / 2}. */
  default Output l2Loss(Operand t) {
    return L2Loss.create(scope(), t);
  }
}
