package io.heliotrope.scheduler.migration.grpc;

import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.heliotrope.error.GrpcErrors;
import io.heliotrope.proto.controller.v1.MigrationOutcome;
import io.heliotrope.proto.controller.v1.MigrationRecord;
import io.heliotrope.proto.scheduler.v1.EnsembleProgress;
import io.heliotrope.proto.scheduler.v1.MigrateRequest;
import io.heliotrope.proto.scheduler.v1.MigrateTogetherRequest;
import io.heliotrope.proto.scheduler.v1.MigrationPhase;
import io.heliotrope.proto.scheduler.v1.MigrationProgress;
import io.heliotrope.proto.scheduler.v1.MigrationServiceGrpc;
import io.heliotrope.proto.scheduler.v1.WatchMigrationRequest;
import io.heliotrope.scheduler.migration.Migration;
import io.heliotrope.scheduler.migration.MigrationDriver;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import static io.heliotrope.grpc.GrpcReplies.reply;
import static java.util.Objects.requireNonNull;

/** {@code heliotrope.scheduler.v1.MigrationService} over the driver. A caller that goes away only stops watching. */
public final class MigrationGrpcService extends MigrationServiceGrpc.MigrationServiceImplBase {
    private final MigrationDriver driver;

    public MigrationGrpcService(MigrationDriver driver) {
        this.driver = requireNonNull(driver, "driver is null");
    }

    @Override
    public void migrate(MigrateRequest request, StreamObserver<MigrationProgress> observer) {
        Migration migration;
        try {
            migration = driver.start(request);
        } catch (RuntimeException e) {
            observer.onError(GrpcErrors.toStatus(e));
            return;
        }
        stream(migration, observer);
    }

    @Override
    public void watch(WatchMigrationRequest request, StreamObserver<MigrationProgress> observer) {
        try {
            var migration = driver.inFlight(request.getVm());
            if (migration.isPresent()) {
                stream(migration.get(), observer);
                return;
            }
            MigrationProgress.Builder done = MigrationProgress.newBuilder().setVm(request.getVm()).setPhase(MigrationPhase.MIGRATION_PHASE_DONE);
            driver.lastRecord(request.getVm()).ifPresent(record -> done.setId(record.getId())
                    .setFromSite(record.getFromSite())
                    .setToSite(record.getToSite())
                    .setResult(record));
            observer.onNext(done.build());
            observer.onCompleted();
        } catch (RuntimeException e) {
            observer.onError(GrpcErrors.toStatus(e));
        }
    }

    @Override
    public void cancel(WatchMigrationRequest request, StreamObserver<MigrationRecord> observer) {
        reply(() -> driver.cancel(request.getVm(), "operator"), record -> record, observer);
    }

    @Override
    public void migrateTogether(MigrateTogetherRequest request, StreamObserver<EnsembleProgress> observer) {
        List<Migration> members;
        try {
            members = driver.startTogether(request);
        } catch (RuntimeException e) {
            observer.onError(GrpcErrors.toStatus(e));
            return;
        }
        ServerCallStreamObserver<EnsembleProgress> call = (ServerCallStreamObserver<EnsembleProgress>) observer;
        String id = members.get(0).ensembleId();
        Consumer<MigrationProgress> watcher = progress -> {
            synchronized (call) {
                if (!call.isCancelled()) {
                    call.onNext(EnsembleProgress.newBuilder().setId(id).addAllMembers(members.stream().map(Migration::progress).toList()).build());
                }
            }
        };
        call.setOnCancelHandler(() -> members.forEach(member -> member.unwatch(watcher)));
        members.forEach(member -> member.watch(watcher));
        CompletableFuture.allOf(members.stream().map(Migration::result).toArray(CompletableFuture[]::new)).whenComplete((ignored, failure) -> {
            List<MigrationRecord> records = members.stream().map(member -> member.result().join()).toList();
            EnsembleProgress.Builder done = EnsembleProgress.newBuilder().setId(id).setDone(true)
                    .addAllMembers(members.stream().map(Migration::progress).toList());
            if (records.stream().allMatch(record -> record.getOutcome() == MigrationOutcome.MIGRATION_OUTCOME_COMPLETED)) {
                long first = records.stream().mapToLong(MigrationRecord::getStopEpochMicros).min().orElse(0);
                long last = records.stream().mapToLong(MigrationRecord::getStopEpochMicros).max().orElse(0);
                done.setStopSpreadMicros(last - first);
            }
            synchronized (call) {
                if (!call.isCancelled()) {
                    call.onNext(done.build());
                    call.onCompleted();
                }
            }
        });
    }

    private static void stream(Migration migration, StreamObserver<MigrationProgress> observer) {
        ServerCallStreamObserver<MigrationProgress> call = (ServerCallStreamObserver<MigrationProgress>) observer;
        Consumer<MigrationProgress> watcher = new Consumer<>() {
            @Override
            public void accept(MigrationProgress progress) {
                synchronized (call) {
                    if (call.isCancelled()) {
                        return;
                    }
                    call.onNext(progress);
                    if (progress.getPhase() == MigrationPhase.MIGRATION_PHASE_DONE) {
                        call.onCompleted();
                    }
                }
            }
        };
        call.setOnCancelHandler(() -> migration.unwatch(watcher));
        migration.watch(watcher);
    }
}
