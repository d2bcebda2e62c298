package io.heliotrope.controller.server;

import io.heliotrope.controller.metadata.BlockEntries;
import io.heliotrope.controller.service.OpenedImage;
import io.heliotrope.proto.controller.v1.OpenImageResponse;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * The messages of one {@code OpenImage} stream, built as they are sent. The first carries
 * lease, config and meta_seq, and {@code snapshot = true} when the site must drop its
 * cache first; entries follow in batches of at most {@value #BATCH} (about 1.5 MB, well
 * under gRPC's 4 MB), the snapshot's, then each delta's in order.
 */
final class OpenImageMessages implements Iterator<OpenImageResponse> {
    static final int BATCH = 1 << 16;

    private final OpenedImage opened;
    private final List<BlockEntries> parts = new ArrayList<>();
    private int part;
    private int offset;
    private boolean first = true;

    OpenImageMessages(OpenedImage opened) {
        this.opened = opened;
        opened.changes().snapshot().ifPresent(parts::add);
        parts.addAll(opened.changes().deltas());
        skipEmpty();
    }

    @Override
    public boolean hasNext() {
        return first || part < parts.size();
    }

    @Override
    public OpenImageResponse next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        OpenImageResponse.Builder message = OpenImageResponse.newBuilder().setMetaSeq(opened.changes().metaSeq());
        if (first) {
            message.setLease(ControllerProtos.toProto(opened.image().config().name(), opened.lease()))
                    .setConfig(ControllerProtos.toProto(opened.image()))
                    .setSnapshot(opened.changes().snapshot().isPresent());
            first = false;
        }
        if (part < parts.size()) {
            BlockEntries entries = parts.get(part);
            int end = Math.min(entries.size(), offset + BATCH);
            message.setEntries(ControllerProtos.toProto(entries.slice(offset, end)));
            offset = end;
            skipEmpty();
        }
        return message.build();
    }

    private void skipEmpty() {
        while (part < parts.size() && offset == parts.get(part).size()) {
            part++;
            offset = 0;
        }
    }
}
