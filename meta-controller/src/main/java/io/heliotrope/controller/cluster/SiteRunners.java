package io.heliotrope.controller.cluster;

import io.grpc.Channel;
import io.grpc.Status;
import io.heliotrope.grpc.ResponseFuture;
import io.heliotrope.proto.storage.v1.ListVmRuntimesRequest;
import io.heliotrope.proto.storage.v1.ListVmRuntimesResponse;
import io.heliotrope.proto.storage.v1.VmRuntime;
import io.heliotrope.proto.storage.v1.VmRunnerServiceGrpc;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * What each site's VM runner said it runs at the cluster view's last round
 * ({@code VmRunnerService.ListVms}, with the round's deadline). A site that did not answer
 * runs VMs in an unknown state; the view says why instead of showing its last answer as
 * current.
 */
final class SiteRunners {
    static final Answer NOT_ASKED = Answer.unknown("unknown (site not asked yet)");
    static final Answer UNREACHABLE = Answer.unknown("unknown (site unreachable)");
    static final Answer NO_RUNNER = Answer.unknown("unknown (the site runs no VM runner)");

    private final Map<String, Answer> answers = new ConcurrentHashMap<>();

    /** A runner's answer: the VMs it runs, or, when it gave none, the state of any VM there. */
    record Answer(List<VmRuntime> vms, String unknown) {
        Answer {
            vms = List.copyOf(vms);
            requireNonNull(unknown, "unknown is null");
        }

        static Answer unknown(String state) {
            return new Answer(List.of(), state);
        }

        boolean answered() {
            return unknown.isEmpty();
        }
    }

    Answer of(String site) {
        return answers.getOrDefault(site, NOT_ASKED);
    }

    /** The QEMUs named {@code vm} that the runners which answered run, by site name. */
    List<VmRuntime> runtimes(String vm) {
        return answers.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .flatMap(answer -> answer.getValue().vms().stream()
                        .filter(runtime -> runtime.getName().equals(vm))
                        .map(runtime -> runtime.toBuilder().setSite(answer.getKey()).build()))
                .toList();
    }

    CompletableFuture<Void> ask(String site, Channel channel, Duration timeout) {
        ResponseFuture<ListVmRuntimesResponse> response = new ResponseFuture<>();
        VmRunnerServiceGrpc.newStub(channel)
                .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .listVms(ListVmRuntimesRequest.getDefaultInstance(), response);
        return response.handle((list, failure) -> {
            if (failure == null) {
                answers.put(site, new Answer(list.getVmsList(), ""));
            } else {
                answers.put(site, Status.fromThrowable(failure).getCode() == Status.Code.UNIMPLEMENTED ? NO_RUNNER : UNREACHABLE);
            }
            return null;
        });
    }

    void unreachable(String site) {
        answers.put(site, UNREACHABLE);
    }

    /** Forgets the sites not in {@code sites}. */
    void retain(Set<String> sites) {
        answers.keySet().retainAll(sites);
    }
}
