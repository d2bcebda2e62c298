package io.heliotrope.wan;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/**
 * One accepted connection and its connection to the link's target, on one event loop, with a
 * delay line each way. Both channels close once both lines have finished.
 */
final class Connection {
    private static final Logger log = LoggerFactory.getLogger(Connection.class);

    private final WanLink link;
    private final Channel client;
    private Channel target;
    private DelayLine forward;
    private DelayLine backward;
    private int finishedLines;

    Connection(WanLink link, Channel client) {
        this.link = requireNonNull(link, "link is null");
        this.client = requireNonNull(client, "client is null");
    }

    /** Called once the client's channel is active; nothing is read from it before. */
    void connect() {
        ChannelFuture connecting = link.connectTarget(client.eventLoop(), new Endpoint(this, false));
        target = connecting.channel();
        forward = new DelayLine(link, link.forward(), client, target, this::lineFinished);
        backward = new DelayLine(link, link.backward(), target, client, this::lineFinished);
        connecting.addListener(connected -> {
            if (connected.isSuccess()) {
                log.debug("{}: {} connected to {}", link, client.remoteAddress(), link.target());
                resume();
            } else if (client.isActive()) {
                log.info("{}: cannot reach {}, closing {}: {}",
                        link, link.target(), client.remoteAddress(), connected.cause().toString());
                client.close();
            }
        });
    }

    /** Lines carrying what {@code fromClient}'s side reads. */
    DelayLine from(boolean fromClient) {
        return fromClient ? forward : backward;
    }

    /** Lines writing to {@code toClient}'s side. */
    DelayLine to(boolean toClient) {
        return toClient ? backward : forward;
    }

    /** Must run on the connection's event loop. */
    void resume() {
        if (forward != null) {
            forward.resume();
            backward.resume();
        }
    }

    /** Drops all data in flight and closes both sides; must run on the connection's event loop. */
    void abort() {
        if (forward != null) {
            forward.abort();
            backward.abort();
        }
        client.close();
    }

    Channel client() {
        return client;
    }

    private void lineFinished() {
        if (++finishedLines == 2) {
            log.debug("{}: {} closed", link, client.remoteAddress());
            client.close();
            target.close();
        }
    }
}
