package io.heliotrope.scheduler.runner;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;

/**
 * What is typed on a VM's serial console goes into its console socket (a QEMU socket
 * chardev, server side, one client at a time), connected on first use and shared by every
 * console of the VM here. While a client is connected QEMU writes the guest's output to it
 * as well as to console.log; a client that did not read would fill the socket and stall the
 * guest's serial port, so a thread reads and drops it (console.log is where output is read).
 * Thread-safe.
 */
final class ConsoleSocket implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ConsoleSocket.class);

    private final String name;
    private final Path path;
    private SocketChannel channel;
    private boolean closed;

    ConsoleSocket(String name, Path path) {
        this.name = name;
        this.path = path;
    }

    synchronized void write(byte[] bytes) throws IOException {
        if (closed) {
            throw new IOException(name + ": the console is closed");
        }
        if (channel == null || !channel.isOpen()) {
            channel = SocketChannel.open(StandardProtocolFamily.UNIX);
            channel.connect(UnixDomainSocketAddress.of(path));
            Thread drain = new Thread(() -> drain(channel), "console-" + name);
            drain.setDaemon(true);
            drain.start();
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                log.debug("{}: closing the console socket failed", name, e);
            }
        }
    }

    private void drain(SocketChannel from) {
        ByteBuffer buffer = ByteBuffer.allocate(16 * 1024);
        try {
            while (from.read(buffer.clear()) >= 0) {
                // The same bytes are in console.log.
            }
        } catch (IOException e) {
            log.debug("{}: the console socket closed: {}", name, e.getMessage());
        }
        try {
            from.close();
        } catch (IOException e) {
            log.debug("{}: closing the console socket failed", name, e);
        }
    }
}
