package dev.psflow.distributed.grpc;

import dev.psflow.distributed.MasterApi;
import dev.psflow.exec.RunMetadata;
import dev.psflow.exec.RunOptions;
import dev.psflow.exec.Session;
import dev.psflow.exec.SessionOptions;
import dev.psflow.exec.StepStats;
import dev.psflow.exec.StatusException;
import dev.psflow.graph.TensorProtos;
import dev.psflow.proto.CloseSessionRequest;
import dev.psflow.proto.CreateSessionRequest;
import dev.psflow.proto.ExtendSessionRequest;
import dev.psflow.proto.GraphDef;
import dev.psflow.proto.ListDevicesRequest;
import dev.psflow.proto.MasterServiceGrpc;
import dev.psflow.proto.NamedTensor;
import dev.psflow.proto.ResetMasterRequest;
import dev.psflow.proto.RunStepRequest;
import dev.psflow.proto.RunStepResponse;
import dev.psflow.tensor.Tensor;
import io.grpc.ManagedChannel;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A {@link MasterApi} reached over gRPC (a session whose target is another process's server). */
final class GrpcMasterClient implements MasterApi {
  private static final long SESSION_DEADLINE_MILLIS = 300_000;

  private final String address;
  private final MasterServiceGrpc.MasterServiceBlockingStub blocking;
  private final MasterServiceGrpc.MasterServiceStub async;

  GrpcMasterClient(String address, ManagedChannel channel) {
    this.address = address;
    this.blocking = MasterServiceGrpc.newBlockingStub(channel);
    this.async = MasterServiceGrpc.newStub(channel);
  }

  private MasterServiceGrpc.MasterServiceBlockingStub control() {
    return blocking.withDeadlineAfter(SESSION_DEADLINE_MILLIS, TimeUnit.MILLISECONDS);
  }

  @Override
  public String createSession(GraphDef graph, SessionOptions options) {
    try {
      return control().createSession(CreateSessionRequest.newBuilder().setGraphDef(graph)
          .setConfig(GrpcMasterService.config(options)).build()).getSessionHandle();
    } catch (RuntimeException e) {
      throw StatusMapping.fromGrpc(e, "the master at " + address);
    }
  }

  @Override
  public long extendSession(String handle, GraphDef delta, long currentVersion) {
    try {
      return control().extendSession(ExtendSessionRequest.newBuilder().setSessionHandle(handle).setGraphDef(delta)
          .setCurrentGraphVersion(currentVersion).build()).getNewGraphVersion();
    } catch (RuntimeException e) {
      throw StatusMapping.fromGrpc(e, "the master at " + address);
    }
  }

  @Override
  public CompletableFuture<Session.Run> runStep(String handle, List<String> feedNames, List<Tensor> feedValues,
      List<String> fetches, List<String> targets, RunOptions options) {
    try {
      WholeMessages.check("the feeds of RunStep", feedValues);
    } catch (StatusException e) {
      return CompletableFuture.failedFuture(e);
    }
    long timeoutMillis = options.timeoutMillis();
    RunStepRequest.Builder b = RunStepRequest.newBuilder().setSessionHandle(handle).addAllFetch(fetches)
        .addAllTarget(targets).setTimeoutMs(timeoutMillis).setTraceLevel(options.traceLevel().ordinal());
    for (int i = 0; i < feedNames.size(); i++) {
      b.addFeed(NamedTensor.newBuilder().setName(feedNames.get(i)).setTensor(TensorProtos.toProto(feedValues.get(i))));
    }
    CompletableFuture<Session.Run> out = new CompletableFuture<>();
    var stub = timeoutMillis > 0 ? async.withDeadlineAfter(timeoutMillis + 1000, TimeUnit.MILLISECONDS) : async;
    stub.runStep(b.build(), new StreamObserver<RunStepResponse>() {
      @Override
      public void onNext(RunStepResponse r) {
        List<Tensor> t = new ArrayList<>(r.getTensorCount());
        r.getTensorList().forEach(nt -> t.add(TensorProtos.fromProto(nt.getTensor())));
        RunMetadata metadata = r.getDevStatsCount() == 0 ? RunMetadata.EMPTY : new RunMetadata(
            new StepStats(r.getStepId(), r.getDevStatsList().stream().map(StepStatsProtos::fromProto).toList()));
        out.complete(new Session.Run(t, metadata));
      }

      @Override
      public void onError(Throwable t) {
        out.completeExceptionally(StatusMapping.fromGrpc(t, "the master at " + address));
      }

      @Override
      public void onCompleted() {}
    });
    return out;
  }

  @Override
  public void closeSession(String handle) {
    try {
      control().closeSession(CloseSessionRequest.newBuilder().setSessionHandle(handle).build());
    } catch (RuntimeException e) {
      throw StatusMapping.fromGrpc(e, "the master at " + address);
    }
  }

  @Override
  public List<String> listDevices() {
    try {
      return control().listDevices(ListDevicesRequest.getDefaultInstance()).getDeviceList();
    } catch (RuntimeException e) {
      throw StatusMapping.fromGrpc(e, "the master at " + address);
    }
  }

  @Override
  public void reset(List<String> containers, List<String> deviceFilters) {
    try {
      control().reset(ResetMasterRequest.newBuilder().addAllContainer(containers).addAllDeviceFilters(deviceFilters).build());
    } catch (RuntimeException e) {
      throw StatusMapping.fromGrpc(e, "the master at " + address);
    }
  }
}
