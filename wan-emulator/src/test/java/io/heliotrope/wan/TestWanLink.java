package io.heliotrope.wan;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestWanLink {
    private static final int MIB = 1024 * 1024;
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress("127.0.0.1", 0);

    private final WanEmulator emulator = new WanEmulator(1);
    private final List<AutoCloseable> servers = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        emulator.close();
        for (AutoCloseable server : servers) {
            server.close();
        }
        LeakCheck.assertNoLeaks();
    }

    @Test
    void echoesDataIntactAndCountsEveryByte() throws IOException {
        WanLink link = link(echoServer(), new LinkConfig(Duration.ofMillis(1), 0));
        byte[] data = randomBytes(8 * MIB);

        assertThat(TestingClient.exchange(link.listenAddress(), data)).isEqualTo(data);
        assertThat(link.forwardBytes()).isEqualTo(data.length);
        assertThat(link.backwardBytes()).isEqualTo(data.length);
        Waits.until(() -> link.openConnections() == 0, Duration.ofSeconds(10));
    }

    @Test
    void roundTripTakesTwiceTheOneWayDelay() throws IOException {
        WanLink link = link(echoServer(), new LinkConfig(Duration.ofMillis(50), 0));
        try (Socket socket = TestingClient.connect(link.listenAddress())) {
            assertThat(timeRoundTrip(socket)).isGreaterThanOrEqualTo(Duration.ofMillis(100));

            link.setConfig(link.config().withOneWayDelay(Duration.ofMillis(150)));
            assertThat(timeRoundTrip(socket)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
        }
    }

    @Test
    void connectionsShareTheBandwidthCap() throws Exception {
        long bitsPerSecond = 40_000_000;
        WanLink link = link(echoServer(), new LinkConfig(Duration.ZERO, bitsPerSecond));
        byte[] data = randomBytes(2 * MIB);

        long start = System.nanoTime();
        CompletableFuture<byte[]> other = CompletableFuture.supplyAsync(() -> exchangeUnchecked(link, data));
        assertThat(TestingClient.exchange(link.listenAddress(), data)).isEqualTo(data);
        assertThat(other.get(20, TimeUnit.SECONDS)).isEqualTo(data);
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);

        // A lower bound on the time is an upper bound on the rate, safe on a busy machine.
        Duration transmission = Duration.ofNanos(2 * data.length * 8 * 1_000_000_000L / bitsPerSecond);
        assertThat(elapsed).isGreaterThanOrEqualTo(transmission);
        assertThat(link.forwardBytes()).isEqualTo(2L * data.length);
    }

    @Test
    void windowLimitsOneStreamToWindowPerRoundTrip() throws IOException {
        int window = 64 * 1024;
        WanLink link = link(echoServer(), new LinkConfig(Duration.ofMillis(20), 0, window));
        byte[] data = randomBytes(2 * MIB);

        long start = System.nanoTime();
        assertThat(TestingClient.exchange(link.listenAddress(), data)).isEqualTo(data);
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);

        // The last of 32 windows departs 31 round trips after the first, then takes one more on its way.
        int windows = data.length / window;
        assertThat(elapsed).isGreaterThanOrEqualTo(Duration.ofMillis(40L * (windows - 1) + 20));
    }

    @Test
    void closeDeliversDataInFlightThenClosesTheOtherSide() throws Exception {
        CompletableFuture<Integer> received = new CompletableFuture<>();
        TestingServer sink = server(new TestingServer(socket -> received.complete(socket.getInputStream().readAllBytes().length)));
        WanLink link = link(sink, new LinkConfig(Duration.ofMillis(100), 0));

        try (Socket socket = TestingClient.connect(link.listenAddress())) {
            socket.getOutputStream().write(randomBytes(MIB));
        }

        assertThat(received.get(20, TimeUnit.SECONDS)).isEqualTo(MIB);
        assertThat(link.forwardBytes()).isEqualTo(MIB);
        Waits.until(() -> link.openConnections() == 0, Duration.ofSeconds(10));
    }

    @Test
    void targetThatDoesNotReadStopsTheClientInsteadOfFillingMemory() throws Exception {
        CountDownLatch startReading = new CountDownLatch(1);
        CompletableFuture<Integer> received = new CompletableFuture<>();
        TestingServer sink = server(new TestingServer(socket -> {
            awaitUninterruptibly(startReading);
            received.complete(socket.getInputStream().readAllBytes().length);
        }));
        // Without delay the window empties as fast as bytes are written: only writability holds them.
        WanLink link = link(sink, LinkConfig.direct().withWindow(64 * 1024));
        byte[] data = new byte[64 * MIB];

        try (Socket socket = TestingClient.connect(link.listenAddress())) {
            CompletableFuture<Void> written = CompletableFuture.runAsync(() -> writeUnchecked(socket, data));
            assertThatThrownBy(() -> written.get(1, TimeUnit.SECONDS)).isInstanceOf(TimeoutException.class);
            // What socket buffers on the way can hold, far below what the client tried to send.
            assertThat(link.forwardBytes()).isLessThan(32L * MIB);

            startReading.countDown();
            written.get(20, TimeUnit.SECONDS);
        }
        assertThat(received.get(20, TimeUnit.SECONDS)).isEqualTo(data.length);
    }

    @Test
    void unreachableTargetClosesTheClient() throws IOException {
        InetSocketAddress dead;
        try (ServerSocket closed = new ServerSocket(0)) {
            dead = new InetSocketAddress("127.0.0.1", closed.getLocalPort());
        }
        WanLink link = emulator.addLink("dead", ANY_PORT, dead, LinkConfig.direct());

        try (Socket socket = TestingClient.connect(link.listenAddress())) {
            assertThat(socket.getInputStream().read()).isEqualTo(-1);
        }
        Waits.until(() -> link.openConnections() == 0, Duration.ofSeconds(10));
    }

    @Test
    void blackholeHoldsDataUntilHealed() throws IOException {
        WanLink link = link(echoServer(), LinkConfig.direct());
        try (Socket socket = TestingClient.connect(link.listenAddress())) {
            assertThat(timeRoundTrip(socket)).isNotNull();
            link.setBlackhole(true);
            socket.getOutputStream().write(7);

            socket.setSoTimeout(300);
            assertThatThrownBy(() -> socket.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
            assertThat(link.openConnections()).isEqualTo(1);

            link.setBlackhole(false);
            socket.setSoTimeout(TestingClient.TIMEOUT_MILLIS);
            assertThat(socket.getInputStream().read()).isEqualTo(7);
            assertThat(link.forwardBytes()).isEqualTo(2);
        }
    }

    @Test
    void aConnectionMadeWhileBlackholedCarriesNothingEitherWayUntilHealed() throws IOException {
        // The target speaks first, as an HTTP/2 server sends its settings.
        WanLink link = link(server(new TestingServer(socket -> {
            socket.getOutputStream().write(9);
            socket.getInputStream().transferTo(socket.getOutputStream());
        })), LinkConfig.direct());
        link.setBlackhole(true);
        try (Socket socket = TestingClient.connect(link.listenAddress())) {
            socket.getOutputStream().write(7);

            socket.setSoTimeout(300);
            assertThatThrownBy(() -> socket.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
            assertThat(link.forwardBytes()).isZero();
            assertThat(link.backwardBytes()).isZero();

            link.setBlackhole(false);
            socket.setSoTimeout(TestingClient.TIMEOUT_MILLIS);
            assertThat(socket.getInputStream().read()).isEqualTo(9);
            assertThat(socket.getInputStream().read()).isEqualTo(7);
        }
    }

    @Test
    void backwardHoldDeliversRequestsButHoldsTheirReplies() throws IOException {
        WanLink link = link(echoServer(), LinkConfig.direct());
        try (Socket socket = TestingClient.connect(link.listenAddress())) {
            link.setBackwardHold(true);
            socket.getOutputStream().write(7);

            Waits.until(() -> link.forwardBytes() == 1, Duration.ofSeconds(10));
            socket.setSoTimeout(300);
            assertThatThrownBy(() -> socket.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);

            link.setBackwardHold(false);
            socket.setSoTimeout(TestingClient.TIMEOUT_MILLIS);
            assertThat(socket.getInputStream().read()).isEqualTo(7);
        }
    }

    @Test
    void droppedConnectionsLoseWhatWasInFlightAndTheLinkStillListens() throws IOException {
        WanLink link = link(echoServer(), LinkConfig.direct());
        try (Socket socket = TestingClient.connect(link.listenAddress())) {
            link.setBackwardHold(true);
            socket.getOutputStream().write(7);
            Waits.until(() -> link.forwardBytes() == 1, Duration.ofSeconds(10));

            link.dropConnections();
            link.setBackwardHold(false);

            assertThat(socket.getInputStream().read()).isEqualTo(-1);
            assertThat(link.backwardBytes()).isZero();
        }
        try (Socket again = TestingClient.connect(link.listenAddress())) {
            assertThat(timeRoundTrip(again)).isNotNull();
        }
    }

    private WanLink link(TestingServer target, LinkConfig config) {
        return emulator.addLink("a-b", ANY_PORT, target.address(), config);
    }

    private TestingServer echoServer() throws IOException {
        return server(TestingServer.echo());
    }

    private TestingServer server(TestingServer server) {
        servers.add(server);
        return server;
    }

    /** Sends one byte and waits for its echo. */
    private static Duration timeRoundTrip(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        long start = System.nanoTime();
        socket.getOutputStream().write(42);
        assertThat(in.read()).isEqualTo(42);
        return Duration.ofNanos(System.nanoTime() - start);
    }

    private static void writeUnchecked(Socket socket, byte[] data) {
        try {
            socket.getOutputStream().write(data);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static byte[] exchangeUnchecked(WanLink link, byte[] data) {
        try {
            return TestingClient.exchange(link.listenAddress(), data);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] randomBytes(int size) {
        byte[] data = new byte[size];
        new Random(size).nextBytes(data);
        return data;
    }
}
