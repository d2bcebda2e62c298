package io.heliotrope.scheduler.qmp;

import com.fasterxml.jackson.databind.JsonNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Predicate;

import static java.util.Objects.requireNonNull;

/**
 * One QMP connection to a QEMU over its UNIX socket. Calls are correlated with their replies
 * by {@code id} and may be made from any thread; events go to the listeners, in the order
 * QEMU sent them. When the connection ends, every call still waiting fails with a
 * {@link QmpException} of class {@code Closed}, and so does every later call.
 *
 * <p>Replies complete and listeners run on the connection's reader thread: they must not
 * block (a dependent that waits for another reply of this connection would wait forever).
 */
public final class QmpClient implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(QmpClient.class);
    private static final String CLOSED = "Closed";

    private final String name;
    private final SocketChannel channel;
    private final QmpCodec codec;
    private final Object lock = new Object();
    private final Object writeLock = new Object();
    private final Map<Long, Pending<?>> pending = new HashMap<>();
    private final List<Consumer<QmpEvent>> listeners = new CopyOnWriteArrayList<>();
    private final CompletableFuture<String> greeting = new CompletableFuture<>();
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    private long nextId = 1;
    private boolean open = true;

    private QmpClient(String name, SocketChannel channel, QmpCodec codec) {
        this.name = name;
        this.channel = channel;
        this.codec = codec;
    }

    /**
     * Connects, reads QEMU's greeting and leaves capabilities negotiation mode. A QMP socket
     * serves one client at a time: while another is connected this waits until {@code timeout}.
     *
     * @param name what log lines and errors call this QEMU (the VM's name)
     */
    public static QmpClient connect(Path socket, String name, QmpCodec codec, Duration timeout) throws IOException {
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        QmpClient client = new QmpClient(requireNonNull(name, "name is null"), channel, requireNonNull(codec, "codec is null"));
        try {
            channel.connect(UnixDomainSocketAddress.of(socket));
            Thread reader = new Thread(client::read, "qmp-" + name);
            reader.setDaemon(true);
            reader.start();
            client.greeting.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            client.call(QmpCommands.Action.QMP_CAPABILITIES).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return client;
        } catch (IOException e) {
            client.close();
            throw e;
        } catch (ExecutionException | TimeoutException e) {
            client.close();
            throw new IOException(name + ": no QMP session at " + socket + " within " + timeout.toMillis() + " ms" + (e.getCause() == null ? "" : ": " + e.getCause().getMessage()), e);
        } catch (InterruptedException e) {
            client.close();
            Thread.currentThread().interrupt();
            throw new IOException(name + ": interrupted while connecting to QMP", e);
        }
    }

    public <R> CompletableFuture<R> call(QmpCommand<R> command) {
        Pending<R> call = new Pending<>(command, new CompletableFuture<>());
        long id;
        synchronized (lock) {
            if (!open) {
                return CompletableFuture.failedFuture(closedException(command.execute(), null));
            }
            id = nextId++;
            pending.put(id, call);
        }
        ByteBuffer bytes = ByteBuffer.wrap(codec.encode(id, command));
        try {
            synchronized (writeLock) {
                while (bytes.hasRemaining()) {
                    channel.write(bytes);
                }
            }
        } catch (IOException e) {
            shut(e);
        }
        return call.future();
    }

    /** Adds a listener for every event from now on; run the returned action to remove it. */
    public Runnable addListener(Consumer<QmpEvent> listener) {
        listeners.add(requireNonNull(listener, "listener is null"));
        return () -> listeners.remove(listener);
    }

    /**
     * The first event from now on that satisfies {@code condition}; fails with a
     * {@link TimeoutException} when none came within {@code deadline}, or when the connection
     * ends. Call it before the command that leads to the event.
     */
    public CompletableFuture<QmpEvent> await(Predicate<? super QmpEvent> condition, Duration deadline) {
        CompletableFuture<QmpEvent> result = new CompletableFuture<>();
        Runnable remove = addListener(event -> {
            if (condition.test(event)) {
                result.complete(event);
            }
        });
        closed.thenRun(() -> result.completeExceptionally(closedException("waiting for an event", null)));
        result.orTimeout(deadline.toMillis(), TimeUnit.MILLISECONDS).whenComplete((event, failure) -> remove.run());
        return result;
    }

    /** Completes when the connection has ended (QEMU exited, or {@link #close()}). */
    public CompletableFuture<Void> closed() {
        return closed;
    }

    public boolean isOpen() {
        synchronized (lock) {
            return open;
        }
    }

    @Override
    public void close() {
        shut(null);
    }

    private void read() {
        ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
        QmpFrameDecoder decoder = new QmpFrameDecoder(codec);
        Throwable cause = null;
        try {
            while (channel.read(buffer) >= 0) {
                buffer.flip();
                decoder.decode(buffer).forEach(this::dispatch);
                buffer.clear();
            }
        } catch (IOException | RuntimeException e) {
            cause = e;
        }
        shut(cause);
    }

    private void dispatch(QmpMessage message) {
        if (message instanceof QmpMessage.Event event) {
            for (Consumer<QmpEvent> listener : listeners) {
                try {
                    listener.accept(event.event());
                } catch (RuntimeException e) {
                    log.warn("{}: a listener failed on {}", name, event.event(), e);
                }
            }
        } else if (message instanceof QmpMessage.Return reply) {
            Pending<?> call = take(reply.id());
            if (call != null) {
                call.complete(reply.value(), codec);
            }
        } else if (message instanceof QmpMessage.Error error) {
            Pending<?> call = take(error.id());
            if (call != null) {
                call.future().completeExceptionally(new QmpException(error.errorClass(), name + ": " + call.command().execute() + ": " + error.description()));
            }
        } else if (message instanceof QmpMessage.Greeting hello) {
            greeting.complete(hello.version());
        }
    }

    private Pending<?> take(long id) {
        synchronized (lock) {
            Pending<?> call = pending.remove(id);
            if (call == null) {
                log.warn("{}: a QMP reply to no call (id {})", name, id);
            }
            return call;
        }
    }

    private void shut(Throwable cause) {
        List<Pending<?>> failed;
        synchronized (lock) {
            if (!open) {
                return;
            }
            open = false;
            failed = new ArrayList<>(pending.values());
            pending.clear();
        }
        try {
            channel.close();
        } catch (IOException e) {
            log.debug("{}: closing the QMP socket failed", name, e);
        }
        for (Pending<?> call : failed) {
            call.future().completeExceptionally(closedException(call.command().execute(), cause));
        }
        greeting.completeExceptionally(closedException("greeting", cause));
        closed.complete(null);
    }

    private QmpException closedException(String what, Throwable cause) {
        return new QmpException(CLOSED, name + ": " + what + ": the QMP connection closed" + (cause == null ? "" : " (" + cause.getMessage() + ")"));
    }

    private record Pending<R>(QmpCommand<R> command, CompletableFuture<R> future) {
        void complete(JsonNode value, QmpCodec codec) {
            try {
                future.complete(codec.read(value, command.replyType()));
            } catch (IllegalArgumentException e) {
                future.completeExceptionally(e);
            }
        }
    }
}
