package io.heliotrope.controller.zookeeper;

import org.apache.zookeeper.KeeperException;

import static java.util.Objects.requireNonNull;

/** How a {@link Transaction} ended: committed, or refused by the operation at {@code failedOp}. */
public record MultiOutcome(int failedOp, KeeperException.Code code) {
    static final MultiOutcome COMMITTED = new MultiOutcome(-1, KeeperException.Code.OK);

    public MultiOutcome {
        requireNonNull(code, "code is null");
    }

    public boolean committed() {
        return failedOp < 0;
    }

    public boolean failedAt(int op) {
        return failedOp == op;
    }
}
