package io.heliotrope.nbd.codec;

import io.heliotrope.nbd.MetaContext;
import io.heliotrope.nbd.protocol.NbdSession.SelectedContext;
import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static io.heliotrope.nbd.protocol.NbdConstants.MAX_STRING_LENGTH;

/**
 * The data of handshake options, parsed. Data that does not parse throws
 * {@link MalformedOptionException}, which the handshake answers with
 * {@code NBD_REP_ERR_INVALID} and the exception's message.
 */
final class OptionRequests {
    private OptionRequests() {}

    /** The data of {@code NBD_OPT_GO} and {@code NBD_OPT_INFO}. */
    record Go(String exportName, List<Integer> infoRequests) {}

    /** The data of {@code NBD_OPT_LIST_META_CONTEXT} and {@code NBD_OPT_SET_META_CONTEXT}. */
    record MetaContextQuery(String exportName, List<String> queries) {
        /**
         * The offered contexts that the queries name, with their ids (position plus one).
         * Selecting takes exact names only; listing also takes a namespace ({@code base:})
         * for all its contexts, and no query for all.
         */
        List<SelectedContext> matching(List<MetaContext> offered, boolean select) {
            List<SelectedContext> matches = new ArrayList<>();
            for (int i = 0; i < offered.size(); i++) {
                String name = offered.get(i).name();
                String namespace = name.substring(0, name.indexOf(':') + 1);
                if (queries.contains(name) || !select && (queries.isEmpty() || queries.contains(namespace))) {
                    matches.add(new SelectedContext(i + 1, offered.get(i)));
                }
            }
            return matches;
        }
    }

    static final class MalformedOptionException extends Exception {
        MalformedOptionException(String message) {
            super(message, null, false, false);
        }
    }

    static void requireEmpty(ByteBuf data, String option) throws MalformedOptionException {
        if (data.isReadable()) {
            throw new MalformedOptionException(option + " takes no data");
        }
    }

    static Go go(ByteBuf data) throws MalformedOptionException {
        String name = readString(data, 2);
        if (name == null || data.readableBytes() < 2) {
            throw new MalformedOptionException("malformed export name");
        }
        int count = data.readUnsignedShort();
        if (data.readableBytes() != 2 * count) {
            throw new MalformedOptionException("information request count does not match length");
        }
        List<Integer> requests = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            requests.add(data.readUnsignedShort());
        }
        return new Go(name, requests);
    }

    static MetaContextQuery metaContext(ByteBuf data) throws MalformedOptionException {
        String name = readString(data, 4);
        if (name == null || data.readableBytes() < 4) {
            throw new MalformedOptionException("malformed export name");
        }
        long count = data.readUnsignedInt();
        List<String> queries = new ArrayList<>();
        for (long i = 0; i < count; i++) {
            String query = readString(data, 0);
            if (query == null) {
                throw new MalformedOptionException("malformed metadata context query");
            }
            queries.add(query);
        }
        if (data.isReadable()) {
            throw new MalformedOptionException("trailing bytes after metadata context queries");
        }
        return new MetaContextQuery(name, queries);
    }

    /**
     * Reads a string prefixed by its 32-bit length, leaving {@code trailing} bytes at
     * least; returns null when the length does not fit.
     */
    private static String readString(ByteBuf data, int trailing) {
        if (data.readableBytes() < 4) {
            return null;
        }
        long length = data.readUnsignedInt();
        if (length > MAX_STRING_LENGTH || length > data.readableBytes() - trailing) {
            return null;
        }
        return data.readCharSequence((int) length, StandardCharsets.UTF_8).toString();
    }
}
