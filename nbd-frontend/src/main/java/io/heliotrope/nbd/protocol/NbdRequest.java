package io.heliotrope.nbd.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.util.AbstractReferenceCounted;
import io.netty.util.ReferenceCounted;

import java.util.Optional;

/**
 * One transmission-phase request as it came off the wire, not yet validated.
 * {@code length} is the unsigned 32-bit length of the header. A WRITE carries its
 * payload as a retained slice; a WRITE longer than {@link NbdConstants#MAX_PAYLOAD}
 * carries none (the decoder discarded it) and must be refused.
 */
public final class NbdRequest extends AbstractReferenceCounted {
    private final int flags;
    private final int type;
    private final long handle;
    private final long offset;
    private final long length;
    private final ByteBuf payload;

    public NbdRequest(int flags, int type, long handle, long offset, long length, ByteBuf payload) {
        this.flags = flags;
        this.type = type;
        this.handle = handle;
        this.offset = offset;
        this.length = length;
        this.payload = payload;
    }

    public int flags() {
        return flags;
    }

    public boolean hasFlag(int flag) {
        return (flags & flag) != 0;
    }

    public int type() {
        return type;
    }

    public Optional<NbdCommand> command() {
        return NbdCommand.fromWire(type);
    }

    public long handle() {
        return handle;
    }

    /** The offset as sent: an unsigned 64-bit value, so it may read as negative. */
    public long offset() {
        return offset;
    }

    public long length() {
        return length;
    }

    /** The WRITE payload, or {@code null}. */
    public ByteBuf payload() {
        return payload;
    }

    @Override
    protected void deallocate() {
        if (payload != null) {
            payload.release();
        }
    }

    @Override
    public ReferenceCounted touch(Object hint) {
        if (payload != null) {
            payload.touch(hint);
        }
        return this;
    }

    @Override
    public String toString() {
        return "NbdRequest{type=" + command().map(Enum::name).orElse(Integer.toString(type))
                + ", flags=" + flags + ", handle=" + handle + ", offset=" + Long.toUnsignedString(offset)
                + ", length=" + length + "}";
    }
}
