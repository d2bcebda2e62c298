package io.heliotrope.scheduler.decision.grpc;

import io.grpc.stub.StreamObserver;
import io.heliotrope.proto.scheduler.v1.Application;
import io.heliotrope.proto.scheduler.v1.Decision;
import io.heliotrope.proto.scheduler.v1.DeleteApplicationResponse;
import io.heliotrope.proto.scheduler.v1.GetApplicationRequest;
import io.heliotrope.proto.scheduler.v1.GetSchedulerStatusRequest;
import io.heliotrope.proto.scheduler.v1.ListApplicationsRequest;
import io.heliotrope.proto.scheduler.v1.ListApplicationsResponse;
import io.heliotrope.proto.scheduler.v1.ListPoliciesRequest;
import io.heliotrope.proto.scheduler.v1.ListPoliciesResponse;
import io.heliotrope.proto.scheduler.v1.PolicyInfo;
import io.heliotrope.proto.scheduler.v1.ReportWorkloadRequest;
import io.heliotrope.proto.scheduler.v1.ReportWorkloadResponse;
import io.heliotrope.proto.scheduler.v1.RunRequest;
import io.heliotrope.proto.scheduler.v1.RunResponse;
import io.heliotrope.proto.scheduler.v1.SchedulerServiceGrpc;
import io.heliotrope.proto.scheduler.v1.SchedulerStatus;
import io.heliotrope.scheduler.decision.Applications;
import io.heliotrope.scheduler.decision.Scheduler;
import io.heliotrope.scheduler.plugin.Policies;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import static io.heliotrope.grpc.GrpcReplies.reply;
import static java.util.Objects.requireNonNull;

/** {@code heliotrope.scheduler.v1.SchedulerService}: applications, workload reports and decisions. */
public final class SchedulerGrpcService extends SchedulerServiceGrpc.SchedulerServiceImplBase {
    private final Applications applications;
    private final Scheduler scheduler;
    private final Policies policies;

    public SchedulerGrpcService(Applications applications, Scheduler scheduler, Policies policies) {
        this.applications = requireNonNull(applications, "applications is null");
        this.scheduler = requireNonNull(scheduler, "scheduler is null");
        this.policies = requireNonNull(policies, "policies is null");
    }

    @Override
    public void createApplication(Application request, StreamObserver<Application> observer) {
        unary(() -> applications.create(request), observer);
    }

    @Override
    public void getApplication(GetApplicationRequest request, StreamObserver<Application> observer) {
        unary(() -> applications.get(request.getName()), observer);
    }

    @Override
    public void listApplications(ListApplicationsRequest request, StreamObserver<ListApplicationsResponse> observer) {
        unary(() -> ListApplicationsResponse.newBuilder().addAllApplications(applications.list()).build(), observer);
    }

    @Override
    public void deleteApplication(GetApplicationRequest request, StreamObserver<DeleteApplicationResponse> observer) {
        unary(() -> {
            applications.delete(request.getName());
            return DeleteApplicationResponse.getDefaultInstance();
        }, observer);
    }

    @Override
    public void reportWorkload(ReportWorkloadRequest request, StreamObserver<ReportWorkloadResponse> observer) {
        unary(() -> ReportWorkloadResponse.newBuilder().setReportsInWindow(applications.report(request.getApplication(), request.getJson())).build(),
                observer);
    }

    @Override
    public void explain(GetApplicationRequest request, StreamObserver<Decision> observer) {
        unary(() -> scheduler.explain(request.getName()), observer);
    }

    @Override
    public void run(RunRequest request, StreamObserver<RunResponse> observer) {
        unary(() -> RunResponse.newBuilder().addAllDecisions(scheduler.run(request.getPolicy(), request.getDryRun())).build(), observer);
    }

    @Override
    public void listPolicies(ListPoliciesRequest request, StreamObserver<ListPoliciesResponse> observer) {
        unary(() -> {
            ListPoliciesResponse.Builder response = ListPoliciesResponse.newBuilder();
            policies.list().forEach(info -> response.addPolicies(PolicyInfo.newBuilder()
                    .setName(info.name())
                    .setDescription(info.description())
                    .setSource(info.source())));
            return response.build();
        }, observer);
    }

    @Override
    public void getSchedulerStatus(GetSchedulerStatusRequest request, StreamObserver<SchedulerStatus> observer) {
        unary(scheduler::status, observer);
    }

    /** The scheduler's calls block on ZooKeeper and the controller: they run on the gRPC executor's thread, as the driver's do. */
    private static <T> void unary(Supplier<T> call, StreamObserver<T> observer) {
        reply(() -> CompletableFuture.completedFuture(call.get()), value -> value, observer);
    }
}
