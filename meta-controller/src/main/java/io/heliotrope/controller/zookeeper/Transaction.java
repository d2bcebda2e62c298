package io.heliotrope.controller.zookeeper;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The operations of one ZooKeeper {@code multi}, applied all or none. Keeps count of its
 * bytes: ZooKeeper answers an oversized request by dropping the connection, so
 * {@link ZooKeeperStore#commit} refuses one before sending it.
 */
public final class Transaction {
    /** Anyone may do anything: the ensemble is the controller's own, as Curator's default. */
    private static final List<ACL> OPEN = List.of(new ACL(ZooDefs.Perms.ALL, new Id("world", "anyone")));

    private final List<Op> ops = new ArrayList<>();
    private long bytes;

    public Transaction create(String path, byte[] data) {
        return add(Op.create(path, data, OPEN, CreateMode.PERSISTENT), path, data.length);
    }

    public Transaction setData(String path, byte[] data, int version) {
        return add(Op.setData(path, data, version), path, data.length);
    }

    public Transaction check(String path, int version) {
        return add(Op.check(path, version), path, 0);
    }

    public Transaction delete(String path, int version) {
        return add(Op.delete(path, version), path, 0);
    }

    /** The number of operations so far: the index the next one will have. */
    public int size() {
        return ops.size();
    }

    long bytes() {
        return bytes;
    }

    List<Op> ops() {
        return List.copyOf(ops);
    }

    private Transaction add(Op op, String path, int dataBytes) {
        ops.add(op);
        bytes += path.getBytes(StandardCharsets.UTF_8).length + dataBytes + 32;
        return this;
    }
}
