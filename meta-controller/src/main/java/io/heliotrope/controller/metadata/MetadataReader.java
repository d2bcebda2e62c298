package io.heliotrope.controller.metadata;

import io.heliotrope.controller.Names;
import io.heliotrope.controller.zookeeper.ImagePaths;
import io.heliotrope.controller.zookeeper.Versioned;
import io.heliotrope.controller.zookeeper.ZooKeeperStore;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Reads committed metadata. A compaction in another controller may delete records and
 * chunks while they are being read; such reads come back empty and the caller starts
 * over from a fresh {@code meta}.
 */
final class MetadataReader {
    private final ZooKeeperStore zk;
    private final PayloadStore payloads;

    MetadataReader(ZooKeeperStore zk, PayloadStore payloads) {
        this.zk = requireNonNull(zk, "zk is null");
        this.payloads = requireNonNull(payloads, "payloads is null");
    }

    Versioned<MetaState> meta(String image, ImagePaths paths) {
        return zk.readJson(paths.meta(), MetaState.class).orElseThrow(() -> Names.imageNotFound(image));
    }

    /** The snapshot at {@code seq} (0: the empty one before any delta). */
    Optional<BlockEntries> snapshot(ImagePaths paths, long seq) {
        if (seq == 0) {
            return Optional.of(BlockEntries.EMPTY);
        }
        String path = paths.snapshot(seq);
        return zk.read(path).flatMap(node -> entries(paths, RecordHeader.decode(node.value(), path)));
    }

    /** The deltas {@code after + 1} to {@code through}, in order. */
    Optional<List<BlockEntries>> log(ImagePaths paths, long after, long through) {
        List<String> recordPaths = new ArrayList<>();
        for (long seq = after + 1; seq <= through; seq++) {
            recordPaths.add(paths.log(seq));
        }
        List<Optional<byte[]>> records = zk.readAll(recordPaths);
        List<BlockEntries> deltas = new ArrayList<>(records.size());
        for (int i = 0; i < records.size(); i++) {
            String path = recordPaths.get(i);
            Optional<BlockEntries> delta = records.get(i).flatMap(data -> entries(paths, RecordHeader.decode(data, path)));
            if (delta.isEmpty()) {
                return Optional.empty();
            }
            deltas.add(delta.get());
        }
        return Optional.of(deltas);
    }

    Optional<RecordHeader> logHeader(ImagePaths paths, long seq) {
        String path = paths.log(seq);
        return zk.read(path).map(node -> RecordHeader.decode(node.value(), path).header());
    }

    /** The headers of the records at {@code recordPaths} that still exist. */
    List<RecordHeader> headers(List<String> recordPaths) {
        List<Optional<byte[]>> records = zk.readAll(recordPaths);
        List<RecordHeader> headers = new ArrayList<>(records.size());
        for (int i = 0; i < records.size(); i++) {
            if (records.get(i).isPresent()) {
                headers.add(RecordHeader.decode(records.get(i).get(), recordPaths.get(i)).header());
            }
        }
        return headers;
    }

    private Optional<BlockEntries> entries(ImagePaths paths, RecordHeader.Stored record) {
        return payloads.read(paths, record.header(), record.inline()).map(payload -> {
            BlockEntries entries = EntriesCodec.decode(payload);
            if (entries.size() != record.header().entries()) {
                throw new HeliotropeException(ErrorCode.STORAGE_FAILURE, "corrupt record " + record.header().seq() + " of "
                        + paths.image() + ": " + entries.size() + " entries, its header says " + record.header().entries());
            }
            return entries;
        });
    }
}
