package io.heliotrope.scheduler.migration.grpc;

import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.heliotrope.error.GrpcErrors;
import io.heliotrope.proto.controller.v1.MigrationRecord;
import io.heliotrope.proto.scheduler.v1.MigrateRequest;
import io.heliotrope.proto.scheduler.v1.MigrationPhase;
import io.heliotrope.proto.scheduler.v1.MigrationProgress;
import io.heliotrope.proto.scheduler.v1.MigrationServiceGrpc;
import io.heliotrope.proto.scheduler.v1.WatchMigrationRequest;
import io.heliotrope.scheduler.migration.Migration;
import io.heliotrope.scheduler.migration.MigrationDriver;

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
