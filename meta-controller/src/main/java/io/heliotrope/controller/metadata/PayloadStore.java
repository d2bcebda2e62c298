package io.heliotrope.controller.metadata;

import io.heliotrope.controller.zookeeper.ImagePaths;
import io.heliotrope.controller.zookeeper.Json;
import io.heliotrope.controller.zookeeper.Transaction;
import io.heliotrope.controller.zookeeper.Versioned;
import io.heliotrope.controller.zookeeper.ZooKeeperStore;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import static java.util.Objects.requireNonNull;

/**
 * Where an encoded payload lives: inline in its record when small, else in chunk znodes
 * under {@code staging/<id>}, all written at once (pipelined) before the small record
 * that references them is committed. Readers only follow committed records, so staged
 * chunks nobody committed are invisible; {@link #sweep} removes them once they are old.
 */
final class PayloadStore {
    private static final Logger log = LoggerFactory.getLogger(PayloadStore.class);
    /** Inline payloads keep a commit transaction far below ZooKeeper's request limit. */
    static final int INLINE_LIMIT = 256 * 1024;
    static final int CHUNK_BYTES = 512 * 1024;

    /** A payload placed for a record: {@code inline} bytes, or {@code state.chunks()} chunks under staging/{@code staging}. */
    record Placement(String staging, StagingState state, byte[] inline) {
        boolean staged() {
            return state != null;
        }

        int stagedBytes() {
            return staged() ? state.bytes() : 0;
        }

        int chunks() {
            return staged() ? state.chunks() : 0;
        }
    }

    private final ZooKeeperStore zk;
    private final Clock clock;

    PayloadStore(ZooKeeperStore zk, Clock clock) {
        this.zk = requireNonNull(zk, "zk is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    Placement place(ImagePaths paths, byte[] payload, String owner) {
        if (payload.length <= INLINE_LIMIT) {
            return new Placement("", null, payload);
        }
        String id = UUID.randomUUID().toString();
        int chunks = (payload.length + CHUNK_BYTES - 1) / CHUNK_BYTES;
        StagingState state = new StagingState(StagingState.Phase.STAGED, owner, clock.millis(), chunks, payload.length);
        zk.create(paths.staging(id), Json.write(state));
        List<String> chunkPaths = new ArrayList<>(chunks);
        List<byte[]> data = new ArrayList<>(chunks);
        for (int i = 0; i < chunks; i++) {
            chunkPaths.add(paths.chunk(id, i));
            data.add(Arrays.copyOfRange(payload, i * CHUNK_BYTES, (int) Math.min(payload.length, (long) (i + 1) * CHUNK_BYTES)));
        }
        zk.createAll(chunkPaths, data);
        return new Placement(id, state, new byte[0]);
    }

    /** Adds to a commit the write that claims staged chunks for good (nothing for an inline payload). */
    void claim(Transaction commit, ImagePaths paths, Placement placement) {
        if (placement.staged()) {
            commit.setData(paths.staging(placement.staging()), Json.write(placement.state().in(StagingState.Phase.COMMITTED)), 0);
        }
    }

    /** The payload of a record; empty when its chunks are gone (a compaction removed the record meanwhile). */
    Optional<byte[]> read(ImagePaths paths, RecordHeader header, byte[] inline) {
        if (!header.staged()) {
            return Optional.of(inline);
        }
        List<String> chunkPaths = new ArrayList<>(header.chunks());
        for (int i = 0; i < header.chunks(); i++) {
            chunkPaths.add(paths.chunk(header.staging(), i));
        }
        byte[] payload = new byte[header.payloadBytes()];
        int offset = 0;
        for (Optional<byte[]> chunk : zk.readAll(chunkPaths)) {
            if (chunk.isEmpty()) {
                return Optional.empty();
            }
            if (offset + chunk.get().length > payload.length) {
                break;
            }
            System.arraycopy(chunk.get(), 0, payload, offset, chunk.get().length);
            offset += chunk.get().length;
        }
        if (offset != payload.length) {
            throw new HeliotropeException(ErrorCode.STORAGE_FAILURE,
                    "corrupt staging " + paths.staging(header.staging()) + ": chunks do not add up to " + payload.length + " bytes");
        }
        return Optional.of(payload);
    }

    /** Deletes chunks a failed commit placed, unless that commit went through after all. */
    void discard(ImagePaths paths, Placement placement) {
        if (placement.staged() && markAbandoned(paths, placement.staging(), placement.state())) {
            zk.deleteTree(paths.staging(placement.staging()));
        }
    }

    /** Deletes the chunks of a record that is itself being deleted. */
    void delete(ImagePaths paths, RecordHeader header) {
        if (header.staged()) {
            zk.deleteTree(paths.staging(header.staging()));
        }
    }

    /** Removes staged chunks that nobody committed and that were created before {@code createdBefore}; returns how many sets. */
    int sweep(ImagePaths paths, long createdBefore) {
        int swept = 0;
        for (String id : zk.children(paths.staging())) {
            Optional<Versioned<StagingState>> node = zk.readJson(paths.staging(id), StagingState.class);
            if (node.isEmpty()) {
                continue;
            }
            StagingState state = node.get().value();
            boolean stale = node.get().version() == 0 && state.createdEpochMillis() < createdBefore;
            if (state.phase() == StagingState.Phase.ABANDONED || (stale && markAbandoned(paths, id, state))) {
                zk.deleteTree(paths.staging(id));
                log.info("{}: removed {} uncommitted chunks of staging {} (from {})", paths.image(), state.chunks(), id, state.owner());
                swept++;
            }
        }
        return swept;
    }

    /** Wins the chunks for deletion; false when a commit claimed them first. */
    private boolean markAbandoned(ImagePaths paths, String id, StagingState state) {
        return zk.setData(paths.staging(id), Json.write(state.in(StagingState.Phase.ABANDONED)), 0);
    }
}
