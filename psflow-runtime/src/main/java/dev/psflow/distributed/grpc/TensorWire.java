package dev.psflow.distributed.grpc;

import dev.psflow.proto.RecvTensorRequest;
import dev.psflow.proto.WorkerServiceGrpc;
import dev.psflow.tensor.Tensor;
import io.grpc.MethodDescriptor;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCalls;

/**
 * The worker service as served and called: the generated WorkerService, except RecvTensor, whose
 * response is marshalled by {@link TensorMarshaller} (same bytes on the wire, no copies through
 * protobuf objects). Both ends use {@link #RECV_TENSOR}.
 */
final class TensorWire {
  static final MethodDescriptor<RecvTensorRequest, Tensor> RECV_TENSOR = WorkerServiceGrpc.getRecvTensorMethod()
      .toBuilder(ProtoUtils.marshaller(RecvTensorRequest.getDefaultInstance()), TensorMarshaller.INSTANCE)
      .build();

  private TensorWire() {}

  /** {@code service}'s definition with RecvTensor served through {@link #RECV_TENSOR}. */
  static ServerServiceDefinition workerService(GrpcWorkerService service) {
    ServerServiceDefinition generated = service.bindService();
    ServerServiceDefinition.Builder b = ServerServiceDefinition.builder(generated.getServiceDescriptor().getName());
    for (ServerMethodDefinition<?, ?> m : generated.getMethods()) {
      if (!m.getMethodDescriptor().getFullMethodName().equals(RECV_TENSOR.getFullMethodName())) {
        b.addMethod(m);
      }
    }
    b.addMethod(RECV_TENSOR, ServerCalls.asyncUnaryCall(service::recvTensorDirect));
    return b.build();
  }
}
