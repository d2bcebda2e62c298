package io.heliotrope.nbd.protocol;

import static java.util.Objects.requireNonNull;

/**
 * A reply to an option in the handshake, encoded by {@code OptionReplyEncoder}. Each
 * names the option it answers; an option gets any number of replies, then an
 * {@link Ack} or an {@link Error}.
 */
public sealed interface OptionReply {
    int option();

    /** {@code NBD_REP_ACK}: the option succeeded; the last reply to it. */
    record Ack(int option) implements OptionReply {}

    /** {@code NBD_REP_SERVER}: one export, in the reply to {@code NBD_OPT_LIST}, with its description (may be empty). */
    record Server(int option, String exportName, String description) implements OptionReply {
        public Server {
            requireNonNull(exportName, "exportName is null");
            requireNonNull(description, "description is null");
        }
    }

    /** {@code NBD_REP_INFO} of type {@code NBD_INFO_EXPORT}: the size and transmission flags of the export. */
    record ExportInfo(int option, long size, int transmissionFlags) implements OptionReply {}

    /** {@code NBD_REP_INFO} of type {@code NBD_INFO_NAME}: the export's name. */
    record NameInfo(int option, String exportName) implements OptionReply {
        public NameInfo {
            requireNonNull(exportName, "exportName is null");
        }
    }

    /** {@code NBD_REP_INFO} of type {@code NBD_INFO_BLOCK_SIZE}: the block sizes the export accepts and prefers. */
    record BlockSizeInfo(int option, int minimum, int preferred, int maximum) implements OptionReply {}

    /** {@code NBD_REP_META_CONTEXT}: a metadata context, with its id when selected (0 when only listed). */
    record MetaContext(int option, int contextId, String name) implements OptionReply {
        public MetaContext {
            requireNonNull(name, "name is null");
        }
    }

    /** An error reply ({@code NBD_REP_ERR_*}): the option failed, with a message for the client's user. */
    record Error(int option, int type, String message) implements OptionReply {
        public Error {
            if (type >= 0) {
                throw new IllegalArgumentException("not an error reply type: " + type);
            }
            requireNonNull(message, "message is null");
        }
    }
}
