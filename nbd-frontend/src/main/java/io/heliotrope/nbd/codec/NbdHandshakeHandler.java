package io.heliotrope.nbd.codec;

import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.nbd.ExportCatalog;
import io.heliotrope.nbd.ExportDetails;
import io.heliotrope.nbd.ListedExport;
import io.heliotrope.nbd.MetaContext;
import io.heliotrope.nbd.protocol.NbdErrors;
import io.heliotrope.nbd.protocol.NbdSession;
import io.heliotrope.nbd.protocol.NbdSession.SelectedContext;
import io.heliotrope.nbd.protocol.OptionReply;
import io.heliotrope.nbd.tls.ImageAuthorization.Access;
import io.heliotrope.nbd.tls.NbdTls;
import io.heliotrope.nbd.tls.TlsMode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSession;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import static io.heliotrope.nbd.protocol.NbdConstants.FLAG_FIXED_NEWSTYLE;
import static io.heliotrope.nbd.protocol.NbdConstants.FLAG_NO_ZEROES;
import static io.heliotrope.nbd.protocol.NbdConstants.IHAVEOPT;
import static io.heliotrope.nbd.protocol.NbdConstants.INFO_NAME;
import static io.heliotrope.nbd.protocol.NbdConstants.MAX_OPTION_LENGTH;
import static io.heliotrope.nbd.protocol.NbdConstants.MAX_PAYLOAD;
import static io.heliotrope.nbd.protocol.NbdConstants.NBDMAGIC;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_ABORT;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_EXPORT_NAME;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_GO;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_INFO;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_LIST;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_LIST_META_CONTEXT;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_SET_META_CONTEXT;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_STARTTLS;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_STRUCTURED_REPLY;
import static io.heliotrope.nbd.protocol.NbdConstants.PREFERRED_BLOCK_SIZE;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_INVALID;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_POLICY;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_TLS_REQD;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_TOO_BIG;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_UNKNOWN;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_UNSUP;
import static java.util.Objects.requireNonNull;

/**
 * The fixed newstyle handshake. It sends the greeting, answers options until the client
 * picks an export with {@code NBD_OPT_GO} or {@code NBD_OPT_EXPORT_NAME}, then replaces
 * itself with the transmission handlers, which get any bytes the client already sent.
 * Malformed options are answered with {@code NBD_REP_ERR_INVALID}; an option longer than
 * we read is skipped without being buffered and answered with {@code NBD_REP_ERR_TOO_BIG}.
 * A client that has not chosen an export within {@value #HANDSHAKE_TIMEOUT_SECONDS} s is closed.
 * Replies are {@link OptionReply} messages, for the {@link OptionReplyEncoder} this handler
 * puts before itself while it runs.
 *
 * <p>With TLS ({@link NbdTls}), {@code NBD_OPT_STARTTLS} is acknowledged in plaintext, then an
 * {@link SslHandler} goes first in the pipeline and everything negotiated before it is
 * forgotten (structured replies, metadata contexts: a man in the middle could have injected
 * them, nbdkit's CVE-2021-3716). Under {@link TlsMode#REQUIRE} every option but STARTTLS and
 * ABORT is refused with {@code NBD_REP_ERR_TLS_REQD} before it, so nothing is listed or opened
 * in plaintext. A TLS client lists and opens only what its identity's authorization allows,
 * read-only where it may only read.
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
        /** The catalog answers the option later (a list, an open): the client's next bytes wait, unread, and {@code option} stays. */
        WAITING,
        DONE
    }

    private final ExportCatalog catalog;
    private final List<MetaContext> metaContexts;
    private final Function<NbdSession, ChannelHandler> transmission;
    private final NbdTls tls;

    private State state = State.CLIENT_FLAGS;
    private boolean noZeroes;
    private boolean structuredReplies;
    private String metaContextExport;
    private List<SelectedContext> selectedContexts = List.of();
    private int option;
    private long optionLength;
    private boolean tlsStarted;
    /** Between the STARTTLS reply and the end of the TLS handshake: bytes the client sends then are not ours to read. */
    private boolean tlsHandshaking;
    /** The TLS client's identity, once its handshake succeeded. */
    private String identity;

    /**
     * @param metaContexts the metadata contexts offered, in order; a selected context's id is its position plus one
     * @param transmission makes the handler that serves requests of a negotiated session;
     * it is added after the request decoder and must close the session's device.
     */
    public NbdHandshakeHandler(ExportCatalog catalog, List<MetaContext> metaContexts, Function<NbdSession, ChannelHandler> transmission) {
        this(catalog, metaContexts, transmission, NbdTls.OFF);
    }

    /** @param tls whether and how the server offers TLS */
    public NbdHandshakeHandler(ExportCatalog catalog, List<MetaContext> metaContexts, Function<NbdSession, ChannelHandler> transmission, NbdTls tls) {
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.metaContexts = List.copyOf(metaContexts);
        this.transmission = requireNonNull(transmission, "transmission is null");
        this.tls = requireNonNull(tls, "tls is null");
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        ctx.pipeline().addBefore(ctx.name(), replyEncoderName(ctx), OptionReplyEncoder.INSTANCE);
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
                        refuse(ctx, REP_ERR_TOO_BIG, "option too long");
                        ctx.flush();
                    }
                }
            }
            case WAITING, DONE -> {
                // Bytes after NBD_OPT_GO wait for the transmission handlers, and those after another option for its answer.
            }
        }
    }

    private void decodeOptionData(ChannelHandlerContext ctx, ByteBuf in) {
        if (state == State.OPTION_DATA && in.readableBytes() >= optionLength) {
            state = State.OPTION_HEADER;
            handleOption(ctx, in.readSlice((int) optionLength));
            if (tlsHandshaking && in.isReadable()) {
                fail(ctx, in, "data sent before the reply to NBD_OPT_STARTTLS");
            }
        }
    }

    private void handleOption(ChannelHandlerContext ctx, ByteBuf data) {
        if (tls.mode() == TlsMode.REQUIRE && !tlsStarted && option != OPT_STARTTLS && option != OPT_ABORT) {
            if (option == OPT_EXPORT_NAME) {
                // NBD_OPT_EXPORT_NAME has no error reply: the protocol has the server end the session.
                log.info("{}: closing connection: NBD_OPT_EXPORT_NAME without TLS, which this server requires", ctx.channel().remoteAddress());
                state = State.DONE;
                ctx.close();
                return;
            }
            refuse(ctx, REP_ERR_TLS_REQD, "this server requires TLS: send NBD_OPT_STARTTLS first");
            ctx.flush();
            return;
        }
        try {
            switch (option) {
                case OPT_STARTTLS -> {
                    OptionRequests.requireEmpty(data, "NBD_OPT_STARTTLS");
                    startTls(ctx);
                }
                case OPT_EXPORT_NAME -> open(ctx, data.toString(StandardCharsets.UTF_8), List.of());
                case OPT_ABORT -> {
                    reply(ctx, new OptionReply.Ack(option));
                    state = State.DONE;
                    ctx.flush();
                    ctx.close();
                }
                case OPT_LIST -> {
                    OptionRequests.requireEmpty(data, "NBD_OPT_LIST");
                    list(ctx);
                }
                case OPT_INFO, OPT_GO -> {
                    OptionRequests.Go go = OptionRequests.go(data);
                    if (option == OPT_INFO) {
                        info(ctx, go.exportName(), go.infoRequests());
                    } else {
                        open(ctx, go.exportName(), go.infoRequests());
                    }
                }
                case OPT_STRUCTURED_REPLY -> {
                    OptionRequests.requireEmpty(data, "NBD_OPT_STRUCTURED_REPLY");
                    structuredReplies = true;
                    reply(ctx, new OptionReply.Ack(option));
                }
                case OPT_LIST_META_CONTEXT, OPT_SET_META_CONTEXT -> metaContext(ctx, data, option == OPT_SET_META_CONTEXT);
                default -> refuse(ctx, REP_ERR_UNSUP, "option " + option + " is not supported");
            }
        } catch (OptionRequests.MalformedOptionException e) {
            refuse(ctx, REP_ERR_INVALID, e.getMessage());
        }
        ctx.flush();
    }

    private void startTls(ChannelHandlerContext ctx) {
        if (tls.mode() == TlsMode.OFF) {
            refuse(ctx, REP_ERR_UNSUP, "TLS is not configured on this server");
            return;
        }
        if (tlsStarted) {
            refuse(ctx, REP_ERR_INVALID, "TLS is already on");
            return;
        }
        reply(ctx, new OptionReply.Ack(option));
        ctx.flush();
        // Negotiated in plaintext, a man in the middle may have chosen it: TLS starts from nothing (nbdkit's CVE-2021-3716).
        structuredReplies = false;
        metaContextExport = null;
        selectedContexts = List.of();
        tlsStarted = true;
        tlsHandshaking = true;
        // The socket now carries TLS records: a write's payload can no longer be read straight into its room (PayloadReceiveAllocator).
        ctx.channel().config().setRecvByteBufAllocator(new AdaptiveRecvByteBufAllocator());
        ctx.pipeline().addFirst(ctx.name() + "-tls", tls.newHandler(ctx.alloc()));
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof SslHandshakeCompletionEvent done && tlsHandshaking) {
            tlsHandshaking = false;
            if (!done.isSuccess()) {
                log.info("{}: closing connection: TLS handshake failed: {}", ctx.channel().remoteAddress(), done.cause().getMessage());
                ctx.close();
                return;
            }
            SSLSession session = ctx.pipeline().get(SslHandler.class).engine().getSession();
            identity = NbdTls.identity(session);
            log.debug("{}: {} {} as '{}'", ctx.channel().remoteAddress(), session.getProtocol(), session.getCipherSuite(), identity);
        }
        super.userEventTriggered(ctx, event);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        SSLException tlsFailure = cause instanceof SSLException direct ? direct : cause.getCause() instanceof SSLException wrapped ? wrapped : null;
        if (tlsFailure != null) {
            // A client without an acceptable certificate, or that is no TLS client: its problem, not a fault of ours.
            log.info("{}: closing connection: TLS failed: {}", ctx.channel().remoteAddress(), tlsFailure.getMessage());
            ctx.close();
            return;
        }
        ctx.fireExceptionCaught(cause);
    }

    /** What the client may do with {@code image}: a plaintext client (tls: on) what it always could; a TLS client what its identity may. */
    private Access access(String image) {
        if (!tlsStarted) {
            return Access.WRITE;
        }
        return identity == null ? Access.NONE : tls.authorization().access(identity, image);
    }

    private void denied(ChannelHandlerContext ctx, String image) {
        log.info("{}: '{}' may not open image {}", ctx.channel().remoteAddress(), identity, image);
        refuse(ctx, REP_ERR_POLICY, "'" + identity + "' may not open " + image);
    }

    /**
     * Runs a catalog call that completes later (it may ask elsewhere, or open an image), then
     * {@code answer} on the event loop. The client may send nothing before the answer, and
     * whatever it sends anyway is read after it, so replies keep the order of the options. A
     * value that comes once the client has left goes to {@code discard}.
     */
    private <T> void later(ChannelHandlerContext ctx, Supplier<CompletableFuture<T>> call, Consumer<T> discard, BiConsumer<T, Throwable> answer) {
        state = State.WAITING;
        ctx.channel().config().setAutoRead(false);
        CompletableFuture<T> result;
        try {
            result = call.get();
        } catch (RuntimeException e) {
            result = CompletableFuture.failedFuture(e);
        }
        result.whenComplete((value, failure) -> ctx.executor().execute(() -> {
            if (!ctx.channel().isActive() || ctx.isRemoved()) {
                if (value != null) {
                    discard.accept(value);
                }
                return;
            }
            answer.accept(value, failure);
        }));
    }

    private void list(ChannelHandlerContext ctx) {
        later(ctx, catalog::list, exports -> {}, (exports, failure) -> {
            if (failure != null) {
                refused(ctx, "listing the exports", catalog.translate(failure));
            } else {
                for (ListedExport export : exports) {
                    if (access(export.name()) != Access.NONE) {
                        reply(ctx, new OptionReply.Server(option, export.name(), export.description()));
                    }
                }
                reply(ctx, new OptionReply.Ack(option));
            }
            ctx.flush();
            resume(ctx, State.OPTION_HEADER);
        });
    }

    /** Answers {@code NBD_OPT_INFO} with what the catalog tells of the export, which need not open it. */
    private void info(ChannelHandlerContext ctx, String name, List<Integer> infoRequests) {
        Access access = access(name);
        if (access == Access.NONE) {
            denied(ctx, name);
            return;
        }
        later(ctx, () -> catalog.details(name), details -> {}, (details, failure) -> {
            if (failure != null) {
                refused(ctx, name + ": info", catalog.translate(failure));
            } else {
                sendInfo(ctx, name, access == Access.READ ? details.asReadOnly() : details, infoRequests);
            }
            ctx.flush();
            resume(ctx, State.OPTION_HEADER);
        });
    }

    private void open(ChannelHandlerContext ctx, String name, List<Integer> infoRequests) {
        int openedBy = option;
        Access access = access(name);
        if (access == Access.NONE) {
            if (openedBy == OPT_EXPORT_NAME) {
                log.info("{}: closing connection: '{}' may not open image {}", ctx.channel().remoteAddress(), identity, name);
                state = State.DONE;
                ctx.close();
            } else {
                denied(ctx, name);
            }
            return;
        }
        boolean readOnly = access == Access.READ;
        later(ctx, () -> catalog.open(name), BlockDevice::close, (device, failure) -> {
            if (failure != null) {
                openFailed(ctx, name, openedBy, failure);
                return;
            }
            ExportDetails details = readOnly ? ExportDetails.of(device).asReadOnly() : ExportDetails.of(device);
            if (openedBy == OPT_EXPORT_NAME) {
                exportNameReply(ctx, details);
            } else {
                sendInfo(ctx, name, details, infoRequests);
            }
            startTransmission(ctx, name, device, readOnly);
        });
    }

    private void openFailed(ChannelHandlerContext ctx, String name, int openedBy, Throwable openFailure) {
        Throwable failure = catalog.translate(openFailure);
        if (openedBy == OPT_EXPORT_NAME) {
            warnIfFault(name + ": open", failure);
            // The protocol has no error reply for NBD_OPT_EXPORT_NAME: the server must close.
            state = State.DONE;
            ctx.close();
            return;
        }
        refused(ctx, name + ": open", failure);
        ctx.flush();
        resume(ctx, State.OPTION_HEADER);
    }

    /** Answers the option with the error reply of a failure the catalog translated. */
    private void refused(ChannelHandlerContext ctx, String action, Throwable failure) {
        warnIfFault(action, failure);
        refuse(ctx, NbdErrors.toOptionError(failure), NbdErrors.message(failure));
    }

    private static void warnIfFault(String action, Throwable failure) {
        if (NbdErrors.isFault(failure)) {
            log.warn("{} failed", action, failure);
        }
    }

    private void exportNameReply(ChannelHandlerContext ctx, ExportDetails export) {
        ByteBuf buf = ctx.alloc().buffer(noZeroes ? 10 : 134);
        buf.writeLong(export.size());
        buf.writeShort(NbdSession.transmissionFlags(export, structuredReplies));
        if (!noZeroes) {
            buf.writeZero(124);
        }
        ctx.writeAndFlush(buf);
    }

    private void sendInfo(ChannelHandlerContext ctx, String name, ExportDetails export, List<Integer> requests) {
        reply(ctx, new OptionReply.ExportInfo(option, export.size(), NbdSession.transmissionFlags(export, structuredReplies)));
        if (requests.contains(INFO_NAME)) {
            reply(ctx, new OptionReply.NameInfo(option, name));
        }
        // Sent whether asked or not: any alignment is accepted, 4096 is preferred.
        reply(ctx, new OptionReply.BlockSizeInfo(option, 1, PREFERRED_BLOCK_SIZE, MAX_PAYLOAD));
        reply(ctx, new OptionReply.Ack(option));
        ctx.flush();
    }

    private void startTransmission(ChannelHandlerContext ctx, String name, BlockDevice device, boolean readOnly) {
        state = State.DONE;
        NbdSession session = new NbdSession(name, device, structuredReplies, name.equals(metaContextExport) ? selectedContexts : List.of(), readOnly);
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
        ctx.pipeline().remove(replyEncoderName(ctx));
        // Removing this decoder hands what it has buffered to the request decoder.
        ctx.pipeline().remove(this);
    }

    private void metaContext(ChannelHandlerContext ctx, ByteBuf data, boolean set) throws OptionRequests.MalformedOptionException {
        if (set && !structuredReplies) {
            refuse(ctx, REP_ERR_INVALID, "NBD_OPT_SET_META_CONTEXT needs structured replies");
            return;
        }
        OptionRequests.MetaContextQuery query = OptionRequests.metaContext(data);
        if (access(query.exportName()) == Access.NONE) {
            denied(ctx, query.exportName());
            return;
        }
        if (!catalog.exists(query.exportName())) {
            refuse(ctx, REP_ERR_UNKNOWN, "unknown export: " + query.exportName());
            return;
        }
        List<SelectedContext> matches = query.matching(metaContexts, set);
        if (set) {
            metaContextExport = query.exportName();
            selectedContexts = matches;
        }
        for (SelectedContext match : matches) {
            reply(ctx, new OptionReply.MetaContext(option, set ? match.id() : 0, match.context().name()));
        }
        reply(ctx, new OptionReply.Ack(option));
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

    private static String replyEncoderName(ChannelHandlerContext ctx) {
        return ctx.name() + "-replies";
    }

    private static void reply(ChannelHandlerContext ctx, OptionReply reply) {
        ctx.write(reply);
    }

    private void refuse(ChannelHandlerContext ctx, int type, String message) {
        log.debug("{}: option {} refused: {}", ctx.channel().remoteAddress(), option, message);
        reply(ctx, new OptionReply.Error(option, type, message));
    }

    private void fail(ChannelHandlerContext ctx, ByteBuf in, String reason) {
        log.info("{}: closing connection in handshake: {}", ctx.channel().remoteAddress(), reason);
        state = State.DONE;
        in.skipBytes(in.readableBytes());
        ctx.close();
    }
}
