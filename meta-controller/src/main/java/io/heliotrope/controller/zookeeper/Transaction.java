package io.heliotrope.controller.zookeeper;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.data.ACL;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The operations of one ZooKeeper {@code multi}, applied all or none. Keeps count of its
 * bytes: ZooKeeper answers an oversized request by dropping the connection, so
 * {@link ZooKeeperStore#commit} refuses one before sending it. Its creates take the ACL of the
 * store that commits it ({@link ControllerAcl}).
 */
public final class Transaction {
    /** Each operation, given the ACL of the znodes it creates. */
    private final List<Function<List<ACL>, Op>> ops = new ArrayList<>();
    private long bytes;

    public Transaction create(String path, byte[] data) {
        return add(acl -> Op.create(path, data, acl, CreateMode.PERSISTENT), path, data.length);
    }

    public Transaction setData(String path, byte[] data, int version) {
        return add(acl -> Op.setData(path, data, version), path, data.length);
    }

    public Transaction check(String path, int version) {
        return add(acl -> Op.check(path, version), path, 0);
    }

    public Transaction delete(String path, int version) {
        return add(acl -> Op.delete(path, version), path, 0);
    }

    /** The number of operations so far: the index the next one will have. */
    public int size() {
        return ops.size();
    }

    long bytes() {
        return bytes;
    }

    /** The operations, their creates with {@code acl}. */
    List<Op> ops(List<ACL> acl) {
        return ops.stream().map(op -> op.apply(acl)).toList();
    }

    private Transaction add(Function<List<ACL>, Op> op, String path, int dataBytes) {
        ops.add(op);
        bytes += path.getBytes(StandardCharsets.UTF_8).length + dataBytes + 32;
        return this;
    }
}
