package dev.psflow.distributed.grpc;

import dev.psflow.exec.TensorSizeLimit;
import dev.psflow.proto.RecvTensorRequest;
import dev.psflow.proto.WorkerServiceGrpc;
import io.grpc.MethodDescriptor;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCalls;

/**
 * The worker service as served and called: the generated WorkerService, except RecvTensor, whose
 * answer is a stream of {@link TensorChunk}s marshalled by {@link TensorMarshaller} (same bytes on
 * the wire as protobuf's RecvTensorResponse messages, no copies through protobuf objects). Servers
 * use {@link #RECV_TENSOR}; each client call uses its own {@link #recvTensor} descriptor, whose
 * marshaller holds the tensor being received.
 */
final class TensorWire {
  static final MethodDescriptor<RecvTensorRequest, TensorChunk> RECV_TENSOR = recvTensor(TensorMarshaller.SENDING);

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

  /** {@code service}'s definition with RecvTensor served through {@link #RECV_TENSOR}. */
  static ServerServiceDefinition workerService(GrpcWorkerService service) {
    ServerServiceDefinition generated = service.bindService();
    ServerServiceDefinition.Builder b = ServerServiceDefinition.builder(generated.getServiceDescriptor().getName());
    for (ServerMethodDefinition<?, ?> m : generated.getMethods()) {
      if (!m.getMethodDescriptor().getFullMethodName().equals(RECV_TENSOR.getFullMethodName())) {
        b.addMethod(m);
      }
    }
    b.addMethod(RECV_TENSOR, ServerCalls.asyncServerStreamingCall(service::recvTensorChunked));
    return b.build();
  }
}
