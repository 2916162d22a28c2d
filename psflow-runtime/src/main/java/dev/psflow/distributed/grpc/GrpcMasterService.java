package dev.psflow.distributed.grpc;

import dev.psflow.distributed.MasterApi;
import dev.psflow.exec.RunOptions;
import dev.psflow.exec.SessionOptions;
import dev.psflow.exec.TensorSizeLimit;
import dev.psflow.graph.TensorProtos;
import dev.psflow.proto.CloseSessionRequest;
import dev.psflow.proto.CloseSessionResponse;
import dev.psflow.proto.CreateSessionRequest;
import dev.psflow.proto.CreateSessionResponse;
import dev.psflow.proto.ExtendSessionRequest;
import dev.psflow.proto.ExtendSessionResponse;
import dev.psflow.proto.ListDevicesRequest;
import dev.psflow.proto.ListDevicesResponse;
import dev.psflow.proto.MasterServiceGrpc;
import dev.psflow.proto.NamedTensor;
import dev.psflow.proto.ResetMasterRequest;
import dev.psflow.proto.ResetMasterResponse;
import dev.psflow.proto.RunStepRequest;
import dev.psflow.proto.RunStepResponse;
import dev.psflow.proto.SessionConfig;
import dev.psflow.tensor.Tensor;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;

/**
 * Serves a master over gRPC. Calls that may wait (CreateSession waits for peer tasks) run on
 * virtual threads, never on the transport's event loop; RunStep is asynchronous throughout.
 */
final class GrpcMasterService extends MasterServiceGrpc.MasterServiceImplBase {
  private final MasterApi master;
  private final ExecutorService blocking;
  private final TensorSizeLimit tensorSize;

  GrpcMasterService(MasterApi master, ExecutorService blocking, TensorSizeLimit tensorSize) {
    this.master = master;
    this.blocking = blocking;
    this.tensorSize = tensorSize;
  }

  @Override
  public void createSession(CreateSessionRequest req, StreamObserver<CreateSessionResponse> out) {
    blocking.execute(() -> GrpcWorkerService.unary(out, () -> CreateSessionResponse.newBuilder()
        .setSessionHandle(master.createSession(req.getGraphDef(), options(req.getConfig())))
        .setGraphVersion(req.getGraphDef().getVersion())
        .build()));
  }

  @Override
  public void extendSession(ExtendSessionRequest req, StreamObserver<ExtendSessionResponse> out) {
    blocking.execute(() -> GrpcWorkerService.unary(out, () -> ExtendSessionResponse.newBuilder()
        .setNewGraphVersion(master.extendSession(req.getSessionHandle(), req.getGraphDef(), req.getCurrentGraphVersion()))
        .build()));
  }

  @Override
  public void runStep(RunStepRequest req, StreamObserver<RunStepResponse> out) {
    GrpcWorkerService.async(out, () -> {
      List<String> names = new ArrayList<>(req.getFeedCount());
      List<Tensor> values = new ArrayList<>(req.getFeedCount());
      for (NamedTensor nt : req.getFeedList()) {
        names.add(nt.getName());
        tensorSize.checkProto("RunStep feed '" + nt.getName() + "'", nt.getTensor());
        values.add(TensorProtos.fromProto(nt.getTensor()));
      }
      RunOptions.TraceLevel[] levels = RunOptions.TraceLevel.values();
      RunOptions.TraceLevel level = req.getTraceLevel() >= 0 && req.getTraceLevel() < levels.length
          ? levels[req.getTraceLevel()] : RunOptions.TraceLevel.FULL_TRACE;
      return master.runStep(req.getSessionHandle(), names, values, req.getFetchList(), req.getTargetList(),
          new RunOptions(level, Math.max(0, req.getTimeoutMs()))).thenApply(run -> {
            RunStepResponse.Builder b = RunStepResponse.newBuilder();
            List<Tensor> fetched = run.outputs();
            WholeMessages.check("the fetches of RunStep", fetched);
            for (int i = 0; i < fetched.size(); i++) {
              b.addTensor(NamedTensor.newBuilder().setName(req.getFetch(i)).setTensor(TensorProtos.toProto(fetched.get(i))));
            }
            run.metadata().stepStats().devStats().forEach(d -> b.addDevStats(StepStatsProtos.toProto(d)));
            b.setStepId(run.metadata().stepStats().stepId());
            return b.build();
          });
    });
  }

  @Override
  public void closeSession(CloseSessionRequest req, StreamObserver<CloseSessionResponse> out) {
    blocking.execute(() -> GrpcWorkerService.unary(out, () -> {
      master.closeSession(req.getSessionHandle());
      return CloseSessionResponse.getDefaultInstance();
    }));
  }

  @Override
  public void listDevices(ListDevicesRequest req, StreamObserver<ListDevicesResponse> out) {
    GrpcWorkerService.unary(out, () -> ListDevicesResponse.newBuilder().addAllDevice(master.listDevices()).build());
  }

  @Override
  public void reset(ResetMasterRequest req, StreamObserver<ResetMasterResponse> out) {
    blocking.execute(() -> GrpcWorkerService.unary(out, () -> {
      master.reset(req.getContainerList(), req.getDeviceFiltersList());
      return ResetMasterResponse.getDefaultInstance();
    }));
  }

  static SessionOptions options(SessionConfig c) {
    return new SessionOptions(c.getAllowSoftPlacement(), c.getLogDevicePlacement(), c.getDeviceFiltersList(),
        c.getOperationTimeoutMs());
  }

  static SessionConfig config(SessionOptions o) {
    return SessionConfig.newBuilder()
        .setAllowSoftPlacement(o.allowSoftPlacement())
        .setLogDevicePlacement(o.logDevicePlacement())
        .addAllDeviceFilters(o.deviceFilters())
        .setOperationTimeoutMs(o.operationTimeoutMillis())
        .build();
  }
}
