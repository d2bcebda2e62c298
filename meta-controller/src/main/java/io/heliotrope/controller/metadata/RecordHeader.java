package io.heliotrope.controller.metadata;

import io.heliotrope.controller.zookeeper.Json;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.util.Arrays;

import static java.util.Objects.requireNonNullElse;

/**
 * The head of a log record or snapshot znode: one line of JSON, then the encoded entries
 * when they are inline, or nothing when they live in {@code staging/<staging>/0..chunks-1}.
 * {@code commit} is unique per flush, so a retried commit can recognise its own record.
 */
record RecordHeader(long seq, String commit, String site, long epoch, int entries, int payloadBytes, String staging, int chunks) {
    private static final byte NEWLINE = '\n';

    RecordHeader {
        commit = requireNonNullElse(commit, "");
        site = requireNonNullElse(site, "");
        staging = requireNonNullElse(staging, "");
    }

    boolean staged() {
        return !staging.isEmpty();
    }

    /** The record's znode data: this head, a newline, then {@code inline}. */
    byte[] encode(byte[] inline) {
        byte[] head = Json.write(this);
        byte[] data = Arrays.copyOf(head, head.length + 1 + inline.length);
        data[head.length] = NEWLINE;
        System.arraycopy(inline, 0, data, head.length + 1, inline.length);
        return data;
    }

    record Stored(RecordHeader header, byte[] inline) {}

    static Stored decode(byte[] data, String path) {
        int newline = 0;
        while (newline < data.length && data[newline] != NEWLINE) {
            newline++;
        }
        if (newline == data.length) {
            throw new HeliotropeException(ErrorCode.STORAGE_FAILURE, "corrupt record " + path + ": no header line");
        }
        RecordHeader header = Json.read(data, 0, newline, RecordHeader.class, path);
        return new Stored(header, Arrays.copyOfRange(data, newline + 1, data.length));
    }
}
