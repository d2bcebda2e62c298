package io.heliotrope.nbd.protocol;

import io.heliotrope.nbd.BlockDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCounted;

import java.util.List;

import static java.util.Objects.requireNonNull;

/** A transmission-phase reply, encoded by {@code NbdReplyEncoder}. */
public sealed interface NbdReply {
    long handle();

    /** A simple reply: every command when structured replies are off, and all but READ and BLOCK_STATUS when on. */
    record Simple(long handle, NbdError error) implements NbdReply {
        public Simple {
            requireNonNull(error, "error is null");
        }
    }

    /** The data of a successful READ: a simple reply followed by data, or one {@code OFFSET_DATA} chunk. */
    record Read(long handle, long offset, ByteBuf data, boolean structured) implements NbdReply, ReferenceCounted {
        public Read {
            requireNonNull(data, "data is null");
        }

        @Override
        public int refCnt() {
            return data.refCnt();
        }

        @Override
        public Read retain() {
            data.retain();
            return this;
        }

        @Override
        public Read retain(int increment) {
            data.retain(increment);
            return this;
        }

        @Override
        public Read touch() {
            data.touch();
            return this;
        }

        @Override
        public Read touch(Object hint) {
            data.touch(hint);
            return this;
        }

        @Override
        public boolean release() {
            return data.release();
        }

        @Override
        public boolean release(int decrement) {
            return data.release(decrement);
        }
    }

    /** A structured {@code ERROR} chunk that ends the reply to a READ or BLOCK_STATUS. */
    record StructuredError(long handle, NbdError error, String message) implements NbdReply {
        public StructuredError {
            requireNonNull(error, "error is null");
            requireNonNull(message, "message is null");
        }
    }

    /** The reply to BLOCK_STATUS: a chunk for each selected metadata context, the last ending the reply. */
    record BlockStatus(long handle, List<ContextStatus> contexts) implements NbdReply {
        public BlockStatus {
            contexts = List.copyOf(contexts);
            if (contexts.isEmpty()) {
                throw new IllegalArgumentException("a block status reply needs a context");
            }
        }
    }

    /** The descriptors of one metadata context, under the id the handshake gave it. */
    record ContextStatus(int contextId, List<BlockDescriptor> descriptors) {
        public ContextStatus {
            descriptors = List.copyOf(descriptors);
        }
    }
}
