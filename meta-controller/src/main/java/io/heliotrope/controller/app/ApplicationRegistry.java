package io.heliotrope.controller.app;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.heliotrope.controller.Names;
import io.heliotrope.controller.zookeeper.MultiOutcome;
import io.heliotrope.controller.zookeeper.Transaction;
import io.heliotrope.controller.zookeeper.Versioned;
import io.heliotrope.controller.zookeeper.ZooKeeperLayout;
import io.heliotrope.controller.zookeeper.ZooKeeperStore;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.scheduler.v1.Application;
import io.heliotrope.proto.scheduler.v1.Decision;
import io.heliotrope.scheduler.decision.ApplicationStore;
import org.apache.zookeeper.KeeperException;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The scheduler's applications in the controller's ZooKeeper ({@link ZooKeeperLayout} has the
 * paths): each application one znode in protobuf's JSON, its decisions included, changed by
 * compare-and-set on the znode's version (of two controllers racing, one wins and the other
 * re-reads, as for VMs); each workload report one sequential znode under the application's
 * {@code workloads} znode, named for its receive time (to the millisecond), so that reports
 * are listed and dropped by time without reading them. Holds no state of its own: any number
 * of threads and controllers may share the znodes.
 */
public final class ApplicationRegistry implements ApplicationStore {
    public static final int MAX_REPORT_BYTES = 64 * 1024;
    /** Reports kept per application, whatever their age. */
    public static final int MAX_REPORTS = 1000;
    public static final int MAX_DECISIONS = 50;
    /** An application as created: what leaves room in its znode for {@value #MAX_DECISIONS} decisions. */
    public static final int MAX_APPLICATION_BYTES = 64 * 1024;
    /** Where the oldest decisions go even before {@value #MAX_DECISIONS}: a decision explains every term of two plans, which a large workload makes long. */
    private static final int MAX_ZNODE_BYTES = ZooKeeperStore.MAX_REQUEST_BYTES - 4096;
    private static final int MAX_ATTEMPTS = 16;
    private static final String REPORT = "r-";
    private static final JsonFormat.Printer PRINTER = JsonFormat.printer();
    private static final JsonFormat.Parser PARSER = JsonFormat.parser().ignoringUnknownFields();

    private final ZooKeeperStore zk;
    private final ZooKeeperLayout layout;
    private final Clock clock;

    public ApplicationRegistry(ZooKeeperStore zk, ZooKeeperLayout layout, Clock clock) {
        this.zk = requireNonNull(zk, "zk is null");
        this.layout = requireNonNull(layout, "layout is null");
        this.clock = requireNonNull(clock, "clock is null");
        zk.ensurePath(layout.applications());
        zk.ensurePath(layout.workloads());
    }

    /** Stores the application with its VMs sorted, no decisions, and the controller's time as its creation time. */
    @Override
    public Application create(Application application) {
        String name = Names.application(application.getName());
        Application stored = application.toBuilder()
                .clearVms().addAllVms(application.getVmsList().stream().sorted().toList())
                .clearDecisions()
                .setCreatedEpochMillis(clock.millis())
                .build();
        byte[] json = write(stored);
        if (json.length > MAX_APPLICATION_BYTES) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "application '" + name + "' takes " + json.length
                    + " bytes, at most " + MAX_APPLICATION_BYTES + " are allowed");
        }
        MultiOutcome outcome = zk.commit(new Transaction().create(layout.application(name), json).create(layout.workloads(name), new byte[0]));
        if (outcome.failedAt(0) && outcome.code() == KeeperException.Code.NODEEXISTS) {
            throw new HeliotropeException(ErrorCode.APPLICATION_EXISTS, "application '" + name + "' already exists");
        }
        if (!outcome.committed()) {
            throw new HeliotropeException(ErrorCode.STORAGE_FAILURE, "application '" + name + "' was not created: " + outcome.code());
        }
        return stored;
    }

    @Override
    public Application get(String name) {
        return read(name).value();
    }

    /** Every application, in name order; one deleted while they are read is left out. */
    @Override
    public List<Application> list() {
        return zk.readChildren(layout.applications(), ApplicationRegistry::parse);
    }

    /** Deletes its reports first: a report that races the delete finds no application. */
    @Override
    public void delete(String name) {
        read(name);
        zk.deleteTree(layout.workloads(name));
        zk.deleteTree(layout.application(name));
    }

    /**
     * Keeps the report, then drops the application's reports received before {@code keepSince}
     * and the oldest beyond {@value #MAX_REPORTS}; a report over {@value #MAX_REPORT_BYTES}
     * bytes is refused with {@code INVALID_ARGUMENT}. Returns how many it keeps.
     */
    @Override
    public int addReport(String application, Instant receivedAt, String json, Instant keepSince) {
        Names.application(application);
        byte[] data = json.getBytes(StandardCharsets.UTF_8);
        if (data.length > MAX_REPORT_BYTES) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "the workload report for application '" + application + "' takes "
                    + data.length + " bytes, at most " + MAX_REPORT_BYTES + " are allowed");
        }
        String prefix = layout.workloads(application) + "/" + REPORT + String.format("%015d-", receivedAt.toEpochMilli());
        zk.createSequential(prefix, data).orElseThrow(() -> notFound(application));
        List<String> reports = zk.children(layout.workloads(application));
        List<String> dropped = new ArrayList<>();
        for (int i = 0; i < reports.size(); i++) {
            if (i < reports.size() - MAX_REPORTS || receivedMillis(reports.get(i)) < keepSince.toEpochMilli()) {
                dropped.add(layout.workloads(application) + "/" + reports.get(i));
            }
        }
        zk.deleteAll(dropped);
        return reports.size() - dropped.size();
    }

    /** Oldest first, in the order received (ZooKeeper's counter breaks ties of one millisecond). */
    @Override
    public List<StoredReport> reports(String application, Instant since) {
        List<String> names = zk.children(layout.workloads(Names.application(application)));
        if (names.isEmpty()) {
            read(application);
        }
        List<String> kept = names.stream().filter(name -> receivedMillis(name) >= since.toEpochMilli()).toList();
        List<Optional<byte[]>> data = zk.readAll(kept.stream().map(name -> layout.workloads(application) + "/" + name).toList());
        List<StoredReport> reports = new ArrayList<>(kept.size());
        for (int i = 0; i < kept.size(); i++) {
            Instant receivedAt = Instant.ofEpochMilli(receivedMillis(kept.get(i)));
            data.get(i).ifPresent(json -> reports.add(new StoredReport(receivedAt, new String(json, StandardCharsets.UTF_8))));
        }
        return reports;
    }

    /**
     * Appends the decision, or folds it into the newest one when both have the same outcome,
     * reason and sites of the current and best plans: the folded one keeps the newest's first
     * time, counts one more repeat, and takes the new decision's scores and time as its last.
     * A decision appended counts 1 repeat at least; the oldest beyond {@value #MAX_DECISIONS} are dropped, and more
     * while the application's znode would exceed ZooKeeper's limit.
     */
    @Override
    public void record(String application, Decision decision) {
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            Versioned<Application> current = read(application);
            List<Decision> decisions = fold(current.value().getDecisionsList(), decision);
            byte[] json = write(current.value().toBuilder().clearDecisions().addAllDecisions(decisions).build());
            while (json.length > MAX_ZNODE_BYTES && decisions.size() > 1) {
                decisions = decisions.subList(1, decisions.size());
                json = write(current.value().toBuilder().clearDecisions().addAllDecisions(decisions).build());
            }
            if (zk.setData(layout.application(application), json, current.version())) {
                return;
            }
        }
        throw new HeliotropeException(ErrorCode.STORAGE_FAILURE, "application '" + application
                + "' kept changing while its decision was recorded; try again");
    }

    static List<Decision> fold(List<Decision> decisions, Decision decision) {
        List<Decision> next = new ArrayList<>(decisions);
        Decision newest = next.isEmpty() ? null : next.get(next.size() - 1);
        if (newest != null && sameOutcome(newest, decision)) {
            next.set(next.size() - 1, decision.toBuilder()
                    .setAtEpochMillis(newest.getAtEpochMillis())
                    .setRepeats(newest.getRepeats() + 1)
                    .setLastEpochMillis(decision.getAtEpochMillis())
                    .build());
        } else {
            next.add(decision.toBuilder()
                    .setRepeats(Math.max(1, decision.getRepeats()))
                    .setLastEpochMillis(decision.getLastEpochMillis() == 0 ? decision.getAtEpochMillis() : decision.getLastEpochMillis())
                    .build());
        }
        return next.subList(Math.max(0, next.size() - MAX_DECISIONS), next.size());
    }

    private static boolean sameOutcome(Decision a, Decision b) {
        return a.getOutcome() == b.getOutcome()
                && a.getReason().equals(b.getReason())
                && a.getCurrent().getSitesList().equals(b.getCurrent().getSitesList())
                && a.getBest().getSitesList().equals(b.getBest().getSitesList());
    }

    private Versioned<Application> read(String name) {
        String path = layout.application(Names.application(name));
        Versioned<byte[]> node = zk.read(path).orElseThrow(() -> notFound(name));
        return new Versioned<>(parse(node.value(), path), node.version(), node.createZxid());
    }

    private static long receivedMillis(String report) {
        return Long.parseLong(report.substring(REPORT.length(), report.lastIndexOf('-')));
    }

    private static byte[] write(Application application) {
        try {
            return PRINTER.print(application).getBytes(StandardCharsets.UTF_8);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("cannot write application '" + application.getName() + "' as JSON", e);
        }
    }

    private static Application parse(byte[] json, String path) {
        Application.Builder application = Application.newBuilder();
        try {
            PARSER.merge(new String(json, StandardCharsets.UTF_8), application);
        } catch (InvalidProtocolBufferException e) {
            throw new HeliotropeException(ErrorCode.STORAGE_FAILURE, "corrupt application in " + path + ": " + e.getMessage(), e);
        }
        return application.build();
    }

    private static HeliotropeException notFound(String name) {
        return new HeliotropeException(ErrorCode.APPLICATION_NOT_FOUND, "application '" + name + "' does not exist");
    }
}
