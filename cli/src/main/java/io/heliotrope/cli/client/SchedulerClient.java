package io.heliotrope.cli.client;

import io.heliotrope.proto.scheduler.v1.Application;
import io.heliotrope.proto.scheduler.v1.ApplicationDecision;
import io.heliotrope.proto.scheduler.v1.Decision;
import io.heliotrope.proto.scheduler.v1.GetApplicationRequest;
import io.heliotrope.proto.scheduler.v1.GetSchedulerStatusRequest;
import io.heliotrope.proto.scheduler.v1.ListApplicationsRequest;
import io.heliotrope.proto.scheduler.v1.ListPoliciesRequest;
import io.heliotrope.proto.scheduler.v1.PolicyInfo;
import io.heliotrope.proto.scheduler.v1.ReportWorkloadRequest;
import io.heliotrope.proto.scheduler.v1.RunRequest;
import io.heliotrope.proto.scheduler.v1.SchedulerServiceGrpc;
import io.heliotrope.proto.scheduler.v1.SchedulerStatus;

import java.util.List;
import java.util.concurrent.TimeUnit;

/** The scheduler beside the controller: applications, workload reports, decisions. */
public final class SchedulerClient extends GrpcClient {
    public SchedulerClient(Target target) {
        super(target);
    }

    public Application create(Application application) {
        return call(() -> stub().createApplication(application));
    }

    public Application get(String name) {
        return call(() -> stub().getApplication(request(name)));
    }

    public List<Application> list() {
        return call(() -> stub().listApplications(ListApplicationsRequest.getDefaultInstance()).getApplicationsList());
    }

    public void delete(String name) {
        call(() -> stub().deleteApplication(request(name)));
    }

    /** Returns how many reports the application's window holds now. */
    public int report(String application, String json) {
        return call(() -> stub().reportWorkload(ReportWorkloadRequest.newBuilder().setApplication(application).setJson(json).build()).getReportsInWindow());
    }

    public Decision explain(String name) {
        return call(() -> stub().explain(request(name)));
    }

    public List<ApplicationDecision> run(String policy, boolean dryRun) {
        return call(() -> stub().run(RunRequest.newBuilder().setPolicy(policy).setDryRun(dryRun).build()).getDecisionsList());
    }

    public List<PolicyInfo> policies() {
        return call(() -> stub().listPolicies(ListPoliciesRequest.getDefaultInstance()).getPoliciesList());
    }

    public SchedulerStatus status() {
        return call(() -> stub().getSchedulerStatus(GetSchedulerStatusRequest.getDefaultInstance()));
    }

    private static GetApplicationRequest request(String name) {
        return GetApplicationRequest.newBuilder().setName(name).build();
    }

    private SchedulerServiceGrpc.SchedulerServiceBlockingStub stub() {
        return SchedulerServiceGrpc.newBlockingStub(channel).withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS);
    }
}
