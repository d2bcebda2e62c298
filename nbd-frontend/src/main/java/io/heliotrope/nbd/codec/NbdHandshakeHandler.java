package io.heliotrope.nbd.codec;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.nbd.ExportCatalog;
import io.heliotrope.nbd.protocol.NbdSession;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static io.heliotrope.nbd.protocol.NbdConstants.BASE_ALLOCATION;
import static io.heliotrope.nbd.protocol.NbdConstants.BASE_ALLOCATION_ID;
import static io.heliotrope.nbd.protocol.NbdConstants.FLAG_FIXED_NEWSTYLE;
import static io.heliotrope.nbd.protocol.NbdConstants.FLAG_NO_ZEROES;
import static io.heliotrope.nbd.protocol.NbdConstants.IHAVEOPT;
import static io.heliotrope.nbd.protocol.NbdConstants.INFO_BLOCK_SIZE;
import static io.heliotrope.nbd.protocol.NbdConstants.INFO_EXPORT;
import static io.heliotrope.nbd.protocol.NbdConstants.INFO_NAME;
import static io.heliotrope.nbd.protocol.NbdConstants.MAX_OPTION_LENGTH;
import static io.heliotrope.nbd.protocol.NbdConstants.MAX_PAYLOAD;
import static io.heliotrope.nbd.protocol.NbdConstants.MAX_STRING_LENGTH;
import static io.heliotrope.nbd.protocol.NbdConstants.NBDMAGIC;
import static io.heliotrope.nbd.protocol.NbdConstants.OPTION_REPLY_MAGIC;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_ABORT;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_EXPORT_NAME;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_GO;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_INFO;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_LIST;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_LIST_META_CONTEXT;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_SET_META_CONTEXT;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_STRUCTURED_REPLY;
import static io.heliotrope.nbd.protocol.NbdConstants.PREFERRED_BLOCK_SIZE;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ACK;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_INVALID;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_POLICY;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_SHUTDOWN;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_TOO_BIG;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_UNKNOWN;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_UNSUP;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_INFO;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_META_CONTEXT;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_SERVER;
import static java.util.Objects.requireNonNull;

/**
 * The fixed newstyle handshake. It sends the greeting, answers options until the client
 * picks an export with {@code NBD_OPT_GO} or {@code NBD_OPT_EXPORT_NAME}, then replaces
 * itself with the transmission handlers, which get any bytes the client already sent.
 * Malformed options are answered with {@code NBD_REP_ERR_INVALID}; an option longer than
 * we read is skipped without being buffered and answered with {@code NBD_REP_ERR_TOO_BIG}.
 * A client that has not chosen an export within {@value #HANDSHAKE_TIMEOUT_SECONDS} s is closed.
 */
public final class NbdHandshakeHandler extends ByteToMessageDecoder {
    private static final Logger log = LoggerFactory.getLogger(NbdHandshakeHandler.class);
    private static final int KNOWN_CLIENT_FLAGS = FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES;
    /** A client that has not picked an export by then is closed, so idle sockets cannot pile up. */
    static final long HANDSHAKE_TIMEOUT_SECONDS = 60;

    private enum State {
        CLIENT_FLAGS,
        OPTION_HEADER,
        OPTION_DATA,
        OPTION_DISCARD,
        OPENING,
        DONE
    }

    private final ExportCatalog catalog;
    private final Function<NbdSession, ChannelHandler> transmission;

    private State state = State.CLIENT_FLAGS;
    private boolean noZeroes;
    private boolean structuredReplies;
    private String metaContextExport;
    private boolean baseAllocation;
    private int option;
    private long optionLength;

    /**
     * @param transmission makes the handler that serves requests of a negotiated session;
     * it is added after the request decoder and must close the session's device.
     */
    public NbdHandshakeHandler(ExportCatalog catalog, Function<NbdSession, ChannelHandler> transmission) {
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.transmission = requireNonNull(transmission, "transmission is null");
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        ctx.executor().schedule(() -> {
            if (!ctx.isRemoved() && ctx.channel().isActive()) {
                log.info("{}: closing connection: no export chosen within {} s", ctx.channel().remoteAddress(), HANDSHAKE_TIMEOUT_SECONDS);
                ctx.close();
            }
        }, HANDSHAKE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        ByteBuf greeting = ctx.alloc().buffer(18);
        greeting.writeLong(NBDMAGIC);
        greeting.writeLong(IHAVEOPT);
        greeting.writeShort(FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES);
        ctx.writeAndFlush(greeting);
        super.channelActive(ctx);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        switch (state) {
            case CLIENT_FLAGS -> {
                if (in.readableBytes() >= 4) {
                    int clientFlags = in.readInt();
                    if ((clientFlags & ~KNOWN_CLIENT_FLAGS) != 0) {
                        fail(ctx, in, "unknown client flags 0x" + Integer.toHexString(clientFlags));
                        return;
                    }
                    noZeroes = (clientFlags & FLAG_NO_ZEROES) != 0;
                    state = State.OPTION_HEADER;
                }
            }
            case OPTION_HEADER -> {
                if (in.readableBytes() >= 16) {
                    long magic = in.readLong();
                    if (magic != IHAVEOPT) {
                        fail(ctx, in, "bad option magic 0x" + Long.toHexString(magic));
                        return;
                    }
                    option = in.readInt();
                    optionLength = in.readUnsignedInt();
                    state = optionLength > MAX_OPTION_LENGTH ? State.OPTION_DISCARD : State.OPTION_DATA;
                    // An option without data is complete now: no further bytes would call decode again.
                    decodeOptionData(ctx, in);
                }
            }
            case OPTION_DATA -> decodeOptionData(ctx, in);
            case OPTION_DISCARD -> {
                int skip = (int) Math.min(in.readableBytes(), optionLength);
                in.skipBytes(skip);
                optionLength -= skip;
                if (optionLength == 0) {
                    state = State.OPTION_HEADER;
                    if (option == OPT_EXPORT_NAME) {
                        fail(ctx, in, "export name too long");
                    } else {
                        replyError(ctx, REP_ERR_TOO_BIG, "option too long");
                        ctx.flush();
                    }
                }
            }
            case OPENING, DONE -> {
                // Bytes after NBD_OPT_GO wait for the transmission handlers; none are read here.
            }
        }
    }

    private void decodeOptionData(ChannelHandlerContext ctx, ByteBuf in) {
        if (state == State.OPTION_DATA && in.readableBytes() >= optionLength) {
            state = State.OPTION_HEADER;
            handleOption(ctx, in.readSlice((int) optionLength));
        }
    }

    private void handleOption(ChannelHandlerContext ctx, ByteBuf data) {
        switch (option) {
            case OPT_EXPORT_NAME -> open(ctx, data.toString(StandardCharsets.UTF_8), false, List.of());
            case OPT_ABORT -> {
                reply(ctx, REP_ACK, null);
                state = State.DONE;
                ctx.flush();
                ctx.close();
            }
            case OPT_LIST -> listExports(ctx, data);
            case OPT_INFO, OPT_GO -> infoOrGo(ctx, data);
            case OPT_STRUCTURED_REPLY -> {
                if (data.isReadable()) {
                    replyError(ctx, REP_ERR_INVALID, "NBD_OPT_STRUCTURED_REPLY takes no data");
                } else {
                    structuredReplies = true;
                    reply(ctx, REP_ACK, null);
                }
            }
            case OPT_LIST_META_CONTEXT, OPT_SET_META_CONTEXT -> metaContext(ctx, data, option == OPT_SET_META_CONTEXT);
            default -> replyError(ctx, REP_ERR_UNSUP, "option " + option + " is not supported");
        }
        ctx.flush();
    }

    private void listExports(ChannelHandlerContext ctx, ByteBuf data) {
        if (data.isReadable()) {
            replyError(ctx, REP_ERR_INVALID, "NBD_OPT_LIST takes no data");
            return;
        }
        for (String name : catalog.exportNames()) {
            byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
            ByteBuf payload = ctx.alloc().buffer(4 + bytes.length);
            payload.writeInt(bytes.length).writeBytes(bytes);
            reply(ctx, REP_SERVER, payload);
        }
        reply(ctx, REP_ACK, null);
    }

    private void infoOrGo(ChannelHandlerContext ctx, ByteBuf data) {
        String name = readString(data, 2);
        if (name == null || data.readableBytes() < 2) {
            replyError(ctx, REP_ERR_INVALID, "malformed export name");
            return;
        }
        int count = data.readUnsignedShort();
        if (data.readableBytes() != 2 * count) {
            replyError(ctx, REP_ERR_INVALID, "information request count does not match length");
            return;
        }
        List<Integer> requests = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            requests.add(data.readUnsignedShort());
        }
        open(ctx, name, option == OPT_INFO, requests);
    }

    private void open(ChannelHandlerContext ctx, String name, boolean infoOnly, List<Integer> infoRequests) {
        int openedBy = option;
        state = State.OPENING;
        ctx.channel().config().setAutoRead(false);
        catalog.open(name).whenComplete((device, failure) -> ctx.executor().execute(() -> {
            if (!ctx.channel().isActive() || ctx.isRemoved()) {
                if (device != null) {
                    device.close();
                }
                return;
            }
            if (failure != null) {
                openFailed(ctx, name, openedBy, failure);
            } else if (openedBy == OPT_EXPORT_NAME) {
                exportNameReply(ctx, device);
                startTransmission(ctx, name, device);
            } else {
                sendInfo(ctx, name, device, infoRequests);
                if (infoOnly) {
                    device.close();
                    resume(ctx, State.OPTION_HEADER);
                } else {
                    startTransmission(ctx, name, device);
                }
            }
        }));
    }

    private void openFailed(ChannelHandlerContext ctx, String name, int openedBy, Throwable failure) {
        Throwable cause = HeliotropeException.unwrap(failure);
        ErrorCode code = cause instanceof HeliotropeException e ? e.code() : ErrorCode.STORAGE_FAILURE;
        if (code == ErrorCode.STORAGE_FAILURE) {
            log.warn("{}: open failed", name, cause);
        }
        if (openedBy == OPT_EXPORT_NAME) {
            // The protocol has no error reply for NBD_OPT_EXPORT_NAME: the server must close.
            state = State.DONE;
            ctx.close();
            return;
        }
        int error = switch (code) {
            case IMAGE_NOT_FOUND -> REP_ERR_UNKNOWN;
            case SHUTTING_DOWN -> REP_ERR_SHUTDOWN;
            default -> REP_ERR_POLICY;
        };
        replyError(ctx, error, cause.getMessage() == null ? code.name() : cause.getMessage());
        ctx.flush();
        resume(ctx, State.OPTION_HEADER);
    }

    private void exportNameReply(ChannelHandlerContext ctx, BlockDevice device) {
        ByteBuf buf = ctx.alloc().buffer(noZeroes ? 10 : 134);
        buf.writeLong(device.size());
        buf.writeShort(NbdSession.transmissionFlags(device, structuredReplies));
        if (!noZeroes) {
            buf.writeZero(124);
        }
        ctx.writeAndFlush(buf);
    }

    private void sendInfo(ChannelHandlerContext ctx, String name, BlockDevice device, List<Integer> requests) {
        ByteBuf export = ctx.alloc().buffer(12);
        export.writeShort(INFO_EXPORT);
        export.writeLong(device.size());
        export.writeShort(NbdSession.transmissionFlags(device, structuredReplies));
        reply(ctx, REP_INFO, export);
        if (requests.contains(INFO_NAME)) {
            byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
            ByteBuf payload = ctx.alloc().buffer(2 + bytes.length);
            payload.writeShort(INFO_NAME).writeBytes(bytes);
            reply(ctx, REP_INFO, payload);
        }
        // Sent whether asked or not: any alignment is accepted, 4096 is preferred.
        ByteBuf blockSize = ctx.alloc().buffer(14);
        blockSize.writeShort(INFO_BLOCK_SIZE);
        blockSize.writeInt(1);
        blockSize.writeInt(PREFERRED_BLOCK_SIZE);
        blockSize.writeInt(MAX_PAYLOAD);
        reply(ctx, REP_INFO, blockSize);
        reply(ctx, REP_ACK, null);
        ctx.flush();
    }

    private void startTransmission(ChannelHandlerContext ctx, String name, BlockDevice device) {
        state = State.DONE;
        boolean contextSelected = baseAllocation && name.equals(metaContextExport);
        NbdSession session = new NbdSession(name, device, structuredReplies, contextSelected);
        ChannelHandler handler;
        try {
            handler = transmission.apply(session);
        } catch (RuntimeException e) {
            device.close();
            throw e;
        }
        String decoderName = ctx.name() + "-requests";
        ctx.pipeline().addAfter(ctx.name(), decoderName, new NbdRequestDecoder());
        ctx.pipeline().addAfter(decoderName, ctx.name() + "-transmission", handler);
        ctx.channel().config().setAutoRead(true);
        // Removing this decoder hands what it has buffered to the request decoder.
        ctx.pipeline().remove(this);
    }

    private void metaContext(ChannelHandlerContext ctx, ByteBuf data, boolean set) {
        if (set && !structuredReplies) {
            replyError(ctx, REP_ERR_INVALID, "NBD_OPT_SET_META_CONTEXT needs structured replies");
            return;
        }
        String name = readString(data, 4);
        if (name == null || data.readableBytes() < 4) {
            replyError(ctx, REP_ERR_INVALID, "malformed export name");
            return;
        }
        long count = data.readUnsignedInt();
        List<String> queries = new ArrayList<>();
        for (long i = 0; i < count; i++) {
            String query = readString(data, 0);
            if (query == null) {
                replyError(ctx, REP_ERR_INVALID, "malformed metadata context query");
                return;
            }
            queries.add(query);
        }
        if (data.isReadable()) {
            replyError(ctx, REP_ERR_INVALID, "trailing bytes after metadata context queries");
            return;
        }
        if (!catalog.exists(name)) {
            replyError(ctx, REP_ERR_UNKNOWN, "unknown export: " + name);
            return;
        }
        boolean matches = set
                ? queries.contains(BASE_ALLOCATION)
                : queries.isEmpty() || queries.contains("base:") || queries.contains(BASE_ALLOCATION);
        if (set) {
            metaContextExport = name;
            baseAllocation = matches;
        }
        if (matches) {
            byte[] bytes = BASE_ALLOCATION.getBytes(StandardCharsets.UTF_8);
            ByteBuf payload = ctx.alloc().buffer(4 + bytes.length);
            payload.writeInt(set ? BASE_ALLOCATION_ID : 0).writeBytes(bytes);
            reply(ctx, REP_META_CONTEXT, payload);
        }
        reply(ctx, REP_ACK, null);
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

    private void resume(ChannelHandlerContext ctx, State next) {
        state = next;
        ctx.channel().config().setAutoRead(true);
        // Decode options the client sent while we were opening.
        channelReadUnchecked(ctx);
    }

    private void channelReadUnchecked(ChannelHandlerContext ctx) {
        try {
            channelRead(ctx, Unpooled.EMPTY_BUFFER);
        } catch (Exception e) {
            ctx.fireExceptionCaught(e);
        }
    }

    private void reply(ChannelHandlerContext ctx, int type, ByteBuf payload) {
        int length = payload == null ? 0 : payload.readableBytes();
        ByteBuf header = ctx.alloc().buffer(20);
        header.writeLong(OPTION_REPLY_MAGIC);
        header.writeInt(option);
        header.writeInt(type);
        header.writeInt(length);
        ctx.write(header);
        if (payload != null) {
            ctx.write(payload);
        }
    }

    private void replyError(ChannelHandlerContext ctx, int type, String message) {
        log.debug("{}: option {} refused: {}", ctx.channel().remoteAddress(), option, message);
        ByteBuf payload = ctx.alloc().buffer();
        payload.writeCharSequence(message, StandardCharsets.UTF_8);
        reply(ctx, type, payload);
    }

    private void fail(ChannelHandlerContext ctx, ByteBuf in, String reason) {
        log.info("{}: closing connection in handshake: {}", ctx.channel().remoteAddress(), reason);
        state = State.DONE;
        in.skipBytes(in.readableBytes());
        ctx.close();
    }
}
