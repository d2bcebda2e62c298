package io.heliotrope.controller.zookeeper;

import io.heliotrope.controller.zookeeper.ZooKeeperMetrics.Op;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import org.apache.curator.RetryLoop;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;

import static java.util.Objects.requireNonNull;

/**
 * The controller's ZooKeeper client: blocking reads and writes for the executor that runs
 * them, pipelined batches for many znodes at once, and one translation of ZooKeeper
 * failures into {@link HeliotropeException}s (an unreachable ensemble is {@code PEER_UNAVAILABLE}).
 * Each operation's latency, and each failure, goes to its {@link ZooKeeperMetrics}.
 */
public final class ZooKeeperStore implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ZooKeeperStore.class);
    /** ZooKeeper drops the connection on a request over about 1 MB (jute.maxbuffer); stay well below. */
    public static final int MAX_REQUEST_BYTES = 900 * 1024;
    private static final int PIPELINE_WINDOW = 32;
    /** How long after its connection was lost an open or a create waits for ZooKeeper before it fails ({@link #awaitConnected}). */
    public static final Duration RECONNECT_GRACE = Duration.ofSeconds(4);

    private final CuratorFramework client;
    private final String connectString;
    private final long timeoutMillis;
    private final ZooKeeperMetrics metrics;
    private final ControllerAcl acl;
    /** Whether the session's connection is up, and since when (System.currentTimeMillis); replaced as a whole. */
    private volatile Health health;

    /**
     * Whether this controller's ZooKeeper session is connected, since {@code sinceEpochMillis}.
     * Not connected: the ensemble is out of reach or has lost its quorum (a server without a
     * quorum drops its clients), which a client cannot tell apart.
     */
    public record Health(String connectString, boolean connected, long sinceEpochMillis) {}

    private ZooKeeperStore(CuratorFramework client, String connectString, long timeoutMillis, ZooKeeperMetrics metrics, ControllerAcl acl) {
        this.client = client;
        this.connectString = connectString;
        this.timeoutMillis = timeoutMillis;
        this.metrics = metrics;
        this.acl = acl;
        this.health = new Health(connectString, true, System.currentTimeMillis());
        client.getConnectionStateListenable().addListener((ignored, state) -> {
            if (state.isConnected() != health.connected()) {
                health = new Health(connectString, state.isConnected(), System.currentTimeMillis());
                if (state.isConnected()) {
                    log.info("ZooKeeper at {}: connected again ({})", connectString, state);
                } else {
                    log.warn("ZooKeeper at {}: connection lost ({}); opens, creates, renewals and flushes fail until it is back", connectString, state);
                }
            }
        });
    }

    public Health health() {
        return health;
    }

    /**
     * Fails at once with {@code PEER_UNAVAILABLE}, naming ZooKeeper, while the session is not
     * connected: for calls that should not wait for it (what a site repeats anyway: renewals,
     * advances, flushes), which would otherwise wait up to the connection timeout, and its
     * retries, on a thread of the caller's executor.
     */
    public void checkConnected(String action) {
        Health now = health;
        if (!now.connected()) {
            throw outOfReach(action, now);
        }
    }

    /**
     * As {@link #checkConnected}, for the calls a client makes once (opens, creates): a
     * connection lost less than {@link #RECONNECT_GRACE} ago is waited for until then, since
     * a leader election drops every client for a moment and an open should ride through it;
     * an outage older than that fails at once.
     */
    public void awaitConnected(String action) {
        Health now = health;
        if (now.connected()) {
            return;
        }
        long left = now.sinceEpochMillis() + RECONNECT_GRACE.toMillis() - System.currentTimeMillis();
        try {
            if (left > 0 && client.blockUntilConnected(Math.toIntExact(left), TimeUnit.MILLISECONDS)) {
                return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        throw outOfReach(action, now);
    }

    private HeliotropeException outOfReach(String action, Health since) {
        return new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "cannot " + action + ": ZooKeeper at " + connectString
                + " is out of reach or has lost its quorum (for " + (System.currentTimeMillis() - since.sinceEpochMillis()) / 1000 + " s)");
    }

    /** Connects with {@link ControllerAcl#OPEN} and waits for the session, at most {@code sessionTimeout}. */
    public static ZooKeeperStore connect(String connectString, Duration sessionTimeout, ZooKeeperMetrics metrics) {
        return connect(connectString, sessionTimeout, ControllerAcl.OPEN, metrics);
    }

    /**
     * Connects, authenticated as {@code acl} says, and waits for the session, at most
     * {@code sessionTimeout}; every znode it creates from then on gets {@code acl}'s ACL.
     */
    public static ZooKeeperStore connect(String connectString, Duration sessionTimeout, ControllerAcl acl, ZooKeeperMetrics metrics) {
        requireNonNull(connectString, "connectString is null");
        requireNonNull(acl, "acl is null");
        requireNonNull(metrics, "metrics is null");
        int timeoutMillis = Math.toIntExact(sessionTimeout.toMillis());
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .aclProvider(acl)
                .authorization(acl.authorization())
                .sessionTimeoutMs(timeoutMillis)
                .connectionTimeoutMs(timeoutMillis)
                .retryPolicy(new ExponentialBackoffRetry(100, 3))
                .build();
        client.start();
        boolean connected = false;
        try {
            connected = client.blockUntilConnected(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!connected) {
            client.close();
            throw new HeliotropeException(ErrorCode.PEER_UNAVAILABLE,
                    "cannot reach ZooKeeper at " + connectString + " within " + timeoutMillis + " ms");
        }
        return new ZooKeeperStore(client, connectString, timeoutMillis, metrics, acl);
    }

    public Optional<Versioned<byte[]>> read(String path) {
        return read(path, null);
    }

    public <T> Optional<Versioned<T>> readJson(String path, Class<T> type) {
        return read(path).map(node -> json(node, type, path));
    }

    /**
     * Reads a znode and leaves a one-shot watch on it, in one step: {@code changed}
     * completes at the znode's next change or deletion (or when the session loses its
     * connection: a caller checks again, it may find nothing changed).
     */
    public <T> Optional<Versioned<T>> readJsonWatched(String path, Class<T> type, CompletableFuture<Void> changed) {
        return read(path, event -> changed.complete(null)).map(node -> json(node, type, path));
    }

    /** Reads a znode, leaving {@code watcher} on it unless null. */
    private Optional<Versioned<byte[]>> read(String path, Watcher watcher) {
        long start = System.nanoTime();
        try {
            Stat stat = new Stat();
            byte[] data = watcher == null
                    ? client.getData().storingStatIn(stat).forPath(path)
                    : client.getData().storingStatIn(stat).usingWatcher(watcher).forPath(path);
            return Optional.of(new Versioned<>(data == null ? new byte[0] : data, stat.getVersion(), stat.getCzxid()));
        } catch (KeeperException.NoNodeException e) {
            return Optional.empty();
        } catch (Exception e) {
            throw failure(Op.READ, "read " + path, e);
        } finally {
            metrics.record(Op.READ, start);
        }
    }

    private static <T> Versioned<T> json(Versioned<byte[]> node, Class<T> type, String path) {
        return new Versioned<>(Json.read(node.value(), type, path), node.version(), node.createZxid());
    }

    /** The names of the children, sorted; none when the znode does not exist. */
    public List<String> children(String path) {
        long start = System.nanoTime();
        try {
            List<String> children = new ArrayList<>(client.getChildren().forPath(path));
            children.sort(null);
            return children;
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        } catch (Exception e) {
            throw failure(Op.LIST, "list " + path, e);
        } finally {
            metrics.record(Op.LIST, start);
        }
    }

    /** Creates a znode; false when it exists already. */
    public boolean create(String path, byte[] data) {
        checkSize(path, data.length);
        long start = System.nanoTime();
        try {
            client.create().forPath(path, data);
            return true;
        } catch (KeeperException.NodeExistsException e) {
            return false;
        } catch (Exception e) {
            throw failure(Op.CREATE, "create " + path, e);
        } finally {
            metrics.record(Op.CREATE, start);
        }
    }

    /**
     * Creates a persistent sequential znode: {@code prefix} with ZooKeeper's 10-digit counter
     * appended. Returns its path; empty when the parent does not exist.
     */
    public Optional<String> createSequential(String prefix, byte[] data) {
        checkSize(prefix, data.length);
        long start = System.nanoTime();
        try {
            return Optional.of(client.create().withMode(CreateMode.PERSISTENT_SEQUENTIAL).forPath(prefix, data));
        } catch (KeeperException.NoNodeException e) {
            return Optional.empty();
        } catch (Exception e) {
            throw failure(Op.CREATE, "create " + prefix + "N", e);
        } finally {
            metrics.record(Op.CREATE, start);
        }
    }

    /** Creates the znode, or replaces its data when it exists. */
    public void put(String path, byte[] data) {
        if (!create(path, data)) {
            setData(path, data, -1);
        }
    }

    /** Creates the znode and its parents when missing. */
    public void ensurePath(String path) {
        long start = System.nanoTime();
        try {
            client.create().creatingParentsIfNeeded().forPath(path, new byte[0]);
        } catch (KeeperException.NodeExistsException e) {
            // there already
        } catch (Exception e) {
            throw failure(Op.CREATE, "create " + path, e);
        } finally {
            metrics.record(Op.CREATE, start);
        }
    }

    /** Writes a znode if its version is still {@code version} (-1: any); false when it is not, or is gone. */
    public boolean setData(String path, byte[] data, int version) {
        checkSize(path, data.length);
        long start = System.nanoTime();
        try {
            client.setData().withVersion(version).forPath(path, data);
            return true;
        } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
            return false;
        } catch (Exception e) {
            throw failure(Op.WRITE, "write " + path, e);
        } finally {
            metrics.record(Op.WRITE, start);
        }
    }

    /** Deletes a znode and everything below it; nothing when it does not exist. */
    public void deleteTree(String path) {
        long start = System.nanoTime();
        try {
            client.delete().deletingChildrenIfNeeded().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            // gone already
        } catch (Exception e) {
            throw failure(Op.DELETE, "delete " + path, e);
        } finally {
            metrics.record(Op.DELETE, start);
        }
    }

    /** Applies a transaction atomically; a refusal (version, existence) is an outcome, not an exception. */
    public MultiOutcome commit(Transaction transaction) {
        if (transaction.bytes() > MAX_REQUEST_BYTES) {
            throw new IllegalStateException("transaction of " + transaction.bytes() + " bytes exceeds " + MAX_REQUEST_BYTES);
        }
        long start = System.nanoTime();
        try {
            RetryLoop.callWithRetry(client.getZookeeperClient(),
                    () -> client.getZookeeperClient().getZooKeeper().multi(transaction.ops(acl.acl())));
            return MultiOutcome.COMMITTED;
        } catch (KeeperException e) {
            List<OpResult> results = e.getResults();
            if (results == null) {
                throw failure(Op.COMMIT, "commit a transaction", e);
            }
            for (int i = 0; i < results.size(); i++) {
                if (results.get(i) instanceof OpResult.ErrorResult error
                        && error.getErr() != KeeperException.Code.OK.intValue()
                        && error.getErr() != KeeperException.Code.RUNTIMEINCONSISTENCY.intValue()) {
                    return new MultiOutcome(i, KeeperException.Code.get(error.getErr()));
                }
            }
            throw failure(Op.COMMIT, "commit a transaction", e);
        } catch (Exception e) {
            throw failure(Op.COMMIT, "commit a transaction", e);
        } finally {
            metrics.record(Op.COMMIT, start);
        }
    }

    /** Reads many znodes with many requests in flight; an empty element for a missing znode. */
    public List<Optional<byte[]>> readAll(List<String> paths) {
        List<CuratorEvent> events = pipeline(Op.READ_MANY, "read", paths.stream()
                .map(path -> (Request) callback -> client.getData().inBackground(callback).forPath(path))
                .toList());
        List<Optional<byte[]>> data = new ArrayList<>(events.size());
        for (CuratorEvent event : events) {
            KeeperException.Code code = KeeperException.Code.get(event.getResultCode());
            if (code == KeeperException.Code.NONODE) {
                data.add(Optional.empty());
            } else if (code == KeeperException.Code.OK) {
                data.add(Optional.of(event.getData() == null ? new byte[0] : event.getData()));
            } else {
                throw failure(Op.READ_MANY, "read " + event.getPath(), KeeperException.create(code, event.getPath()));
            }
        }
        return data;
    }

    /** The JSON of every child of {@code parent}, in name order; a child deleted while they are read is left out. */
    public <T> List<T> readChildrenJson(String parent, Class<T> type) {
        return readChildren(parent, (data, path) -> Json.read(data, type, path));
    }

    /** Every child of {@code parent} as {@code parse} reads its data and path, in name order; a child deleted while they are read is left out. */
    public <T> List<T> readChildren(String parent, BiFunction<byte[], String, T> parse) {
        List<String> paths = children(parent).stream().map(child -> parent + "/" + child).toList();
        List<Optional<byte[]>> data = readAll(paths);
        List<T> values = new ArrayList<>(paths.size());
        for (int i = 0; i < paths.size(); i++) {
            if (data.get(i).isPresent()) {
                values.add(parse.apply(data.get(i).get(), paths.get(i)));
            }
        }
        return values;
    }

    /** Creates many znodes with many requests in flight; one that exists already counts as created. */
    public void createAll(List<String> paths, List<byte[]> data) {
        List<Request> requests = new ArrayList<>(paths.size());
        for (int i = 0; i < paths.size(); i++) {
            String path = paths.get(i);
            byte[] bytes = data.get(i);
            checkSize(path, bytes.length);
            requests.add(callback -> client.create().inBackground(callback).forPath(path, bytes));
        }
        expect(Op.CREATE_MANY, "create", pipeline(Op.CREATE_MANY, "create", requests), KeeperException.Code.NODEEXISTS);
    }

    /** Deletes many childless znodes with many requests in flight; a missing one counts as deleted. */
    public void deleteAll(List<String> paths) {
        expect(Op.DELETE_MANY, "delete", pipeline(Op.DELETE_MANY, "delete", paths.stream()
                .map(path -> (Request) callback -> client.delete().inBackground(callback).forPath(path))
                .toList()), KeeperException.Code.NONODE);
    }

    /** The ACL of every znode this store creates. */
    public ControllerAcl acl() {
        return acl;
    }

    /** The session's client, for Curator's recipes (the scheduler's leader election); the store closes it. */
    public CuratorFramework curator() {
        return client;
    }

    @Override
    public void close() {
        client.close();
    }

    /** One background request of a {@link #pipeline}. */
    interface Request {
        void send(BackgroundCallback callback) throws Exception;
    }

    /** Sends the requests, at most {@value #PIPELINE_WINDOW} in flight, and times them as one {@code op}; the replies in their order. */
    List<CuratorEvent> pipeline(Op op, String action, List<Request> requests) {
        long start = System.nanoTime();
        Semaphore window = new Semaphore(PIPELINE_WINDOW);
        List<CompletableFuture<CuratorEvent>> pending = new ArrayList<>(requests.size());
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        try {
            for (Request request : requests) {
                if (!window.tryAcquire(remaining(deadline), TimeUnit.NANOSECONDS)) {
                    throw new TimeoutException("no reply within " + timeoutMillis + " ms");
                }
                CompletableFuture<CuratorEvent> reply = new CompletableFuture<>();
                pending.add(reply);
                request.send((ignored, event) -> {
                    window.release();
                    reply.complete(event);
                });
            }
            List<CuratorEvent> events = new ArrayList<>(pending.size());
            for (CompletableFuture<CuratorEvent> reply : pending) {
                events.add(reply.get(remaining(deadline), TimeUnit.NANOSECONDS));
            }
            return events;
        } catch (ExecutionException e) {
            throw failure(op, action + " " + requests.size() + " znodes", e.getCause());
        } catch (Exception e) {
            throw failure(op, action + " " + requests.size() + " znodes", e);
        } finally {
            metrics.record(op, start);
        }
    }

    private static long remaining(long deadline) {
        return Math.max(0, deadline - System.nanoTime());
    }

    private void expect(Op op, String action, List<CuratorEvent> events, KeeperException.Code alsoFine) {
        for (CuratorEvent event : events) {
            KeeperException.Code code = KeeperException.Code.get(event.getResultCode());
            if (code != KeeperException.Code.OK && code != alsoFine) {
                throw failure(op, action + " " + event.getPath(), KeeperException.create(code, event.getPath()));
            }
        }
    }

    private static void checkSize(String path, int dataBytes) {
        if (dataBytes + path.length() > MAX_REQUEST_BYTES) {
            throw new IllegalStateException("write of " + dataBytes + " bytes to " + path + " exceeds " + MAX_REQUEST_BYTES);
        }
    }

    private HeliotropeException failure(Op op, String action, Throwable e) {
        metrics.failed(op);
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        boolean unreachable = e instanceof KeeperException.ConnectionLossException
                || e instanceof KeeperException.SessionExpiredException
                || e instanceof KeeperException.OperationTimeoutException
                || e instanceof InterruptedException
                || e instanceof TimeoutException;
        String refused = e instanceof KeeperException.NoAuthException
                ? acl.secured()
                        ? " (the znode is secured with another secret than this controller's: give every controller the same secret file)"
                        : " (the tree is secured: this controller needs the cluster's secret, --zookeeper-auth-file)"
                : "";
        return new HeliotropeException(unreachable ? ErrorCode.PEER_UNAVAILABLE : ErrorCode.STORAGE_FAILURE,
                "ZooKeeper at " + connectString + " failed to " + action + ": " + e.getMessage() + refused, e);
    }
}
