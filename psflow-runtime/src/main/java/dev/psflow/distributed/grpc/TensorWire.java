package dev.psflow.distributed.grpc;

import dev.psflow.exec.TensorSizeLimit;
import dev.psflow.proto.RecvTensorRequest;
import dev.psflow.proto.RecvTensorsRequest;
import dev.psflow.proto.WorkerServiceGrpc;
import io.grpc.MethodDescriptor;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCalls;

/**
 * The worker service as served and called: the generated WorkerService, except RecvTensor, whose
 * answer is a stream of {@link TensorChunk}s marshalled by {@link TensorMarshaller} (same bytes on
 * the wire as protobuf's RecvTensorResponse messages, no copies through protobuf objects), and
 * RecvTensors, whose messages are the same with their key in front ({@link KeyedTensorMarshaller}).
 * Servers use {@link #RECV_TENSOR} and {@link #RECV_TENSORS}; each client call uses its own
 * descriptor ({@link #recvTensor}, {@link #recvTensors}), whose marshaller holds what it receives.
 */
final class TensorWire {
  static final MethodDescriptor<RecvTensorRequest, TensorChunk> RECV_TENSOR = recvTensor(TensorMarshaller.SENDING);
  static final MethodDescriptor<RecvTensorsRequest, KeyedChunk> RECV_TENSORS = recvTensors(KeyedTensorMarshaller.SENDING);

  private TensorWire() {}

  /** The descriptor for one RecvTensor call that receives a tensor of at most {@code limit}. */
  static MethodDescriptor<RecvTensorRequest, TensorChunk> recvTensor(TensorSizeLimit limit) {
    return recvTensor(TensorMarshaller.receiving(limit));
  }

  private static MethodDescriptor<RecvTensorRequest, TensorChunk> recvTensor(TensorMarshaller m) {
    return WorkerServiceGrpc.getRecvTensorMethod()
        .toBuilder(ProtoUtils.marshaller(RecvTensorRequest.getDefaultInstance()), m)
        .build();
  }

  /** The descriptor for one RecvTensors call of {@code keys} keys, each tensor at most {@code limit}. */
  static MethodDescriptor<RecvTensorsRequest, KeyedChunk> recvTensors(TensorSizeLimit limit, int keys) {
    return recvTensors(KeyedTensorMarshaller.receiving(limit, keys));
  }

  private static MethodDescriptor<RecvTensorsRequest, KeyedChunk> recvTensors(KeyedTensorMarshaller m) {
    return WorkerServiceGrpc.getRecvTensorsMethod()
        .toBuilder(ProtoUtils.marshaller(RecvTensorsRequest.getDefaultInstance()), m)
        .build();
  }

  /** {@code service}'s definition with RecvTensor and RecvTensors served through {@link #RECV_TENSOR} and {@link #RECV_TENSORS}. */
  static ServerServiceDefinition workerService(GrpcWorkerService service) {
    ServerServiceDefinition generated = service.bindService();
    ServerServiceDefinition.Builder b = ServerServiceDefinition.builder(generated.getServiceDescriptor().getName());
    for (ServerMethodDefinition<?, ?> m : generated.getMethods()) {
      String name = m.getMethodDescriptor().getFullMethodName();
      if (!name.equals(RECV_TENSOR.getFullMethodName()) && !name.equals(RECV_TENSORS.getFullMethodName())) {
        b.addMethod(m);
      }
    }
    b.addMethod(RECV_TENSOR, ServerCalls.asyncServerStreamingCall(service::recvTensorChunked));
    b.addMethod(RECV_TENSORS, ServerCalls.asyncServerStreamingCall(service::recvTensorsChunked));
    return b.build();
  }
}
