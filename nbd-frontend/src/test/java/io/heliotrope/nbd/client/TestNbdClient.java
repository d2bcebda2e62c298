package io.heliotrope.nbd.client;

import io.heliotrope.nbd.Extent;
import io.heliotrope.nbd.TestingBlockDevice;
import io.heliotrope.nbd.TestingExportCatalog;
import io.heliotrope.nbd.protocol.NbdCommand;
import io.heliotrope.nbd.protocol.NbdError;
import io.heliotrope.nbd.server.BaseAllocation;
import io.heliotrope.nbd.server.NbdMetrics;
import io.heliotrope.nbd.server.NbdServer;
import io.heliotrope.nbd.server.NbdServerConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBufAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_UNKNOWN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The client against our own NBD server, which the real NBD clients are tested against elsewhere. */
class TestNbdClient {
    private static final int SIZE = 1 << 20;

    private TestingBlockDevice device;
    private TestingBlockDevice readOnly;
    private NbdServer server;
    private InetSocketAddress address;

    @BeforeEach
    void start() {
        device = new TestingBlockDevice(SIZE, ByteBufAllocator.DEFAULT, true, false);
        readOnly = new TestingBlockDevice(SIZE, ByteBufAllocator.DEFAULT, false, true);
        server = new NbdServer(new NbdServerConfig(new InetSocketAddress("127.0.0.1", 0), 1, NbdServerConfig.DEFAULT_POLL),
                new TestingExportCatalog(Map.of("disk", device, "fixed", readOnly)), List.of(new BaseAllocation()),
                new NbdMetrics(new SimpleMeterRegistry()));
        address = server.localAddress();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void negotiatesSizeAndFlags() throws Exception {
        try (NbdClient disk = NbdClient.connect(address, "disk"); NbdClient fixed = NbdClient.connect(address, "fixed")) {
            assertThat(disk.size()).isEqualTo(SIZE);
            assertThat(disk.canMultiConn()).isTrue();
            assertThat(disk.isReadOnly()).isFalse();
            assertThat(fixed.canMultiConn()).isFalse();
            assertThat(fixed.isReadOnly()).isTrue();
        }
    }

    @Test
    void pipelinedWritesAnsweredOutOfOrderThenReadBack() throws Exception {
        byte[] first = filled(8192, (byte) 1);
        byte[] second = filled(4096, (byte) 2);
        try (NbdClient client = NbdClient.connect(address, "disk")) {
            device.hold();
            client.write(0, ByteBuffer.wrap(first));
            client.write(65536, ByteBuffer.wrap(second));
            awaitHeld(2);
            device.releaseHeld();

            List<Long> answered = new ArrayList<>(List.of(client.receive().offset(), client.receive().offset()));
            assertThat(answered).as("replies in reverse order of the requests").containsExactly(65536L, 0L);
            assertThat(client.inFlight()).isZero();

            ByteBuffer read = ByteBuffer.allocateDirect(4096);
            client.read(65536, read);
            NbdClient.Request reply = client.receive();
            assertThat(reply.command()).isEqualTo(NbdCommand.READ);
            byte[] bytes = new byte[4096];
            reply.buffer().flip().get(bytes);
            assertThat(bytes).isEqualTo(second);
        }
        assertThat(Arrays.copyOfRange(device.data(), 0, 8192)).isEqualTo(first);
    }

    @Test
    void flushReachesTheDevice() throws Exception {
        try (NbdClient client = NbdClient.connect(address, "disk")) {
            client.flush();
            client.drain();
        }
        assertThat(device.flushes()).isEqualTo(1);
    }

    @Test
    void blockStatusTellsDataFromHoles() throws Exception {
        device.data()[8192] = 7;
        try (NbdClient client = NbdClient.withAllocation(address, "disk")) {
            List<Extent> extents = client.blockStatus(4096, 3 * 4096);

            assertThat(extents).containsExactly(Extent.zeroHole(4096), Extent.data(4096), Extent.zeroHole(4096));
            assertThatThrownBy(() -> client.read(0, ByteBuffer.allocate(4096))).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void unknownExportIsTheServersRefusalWithItsMessage() {
        assertThatThrownBy(() -> NbdClient.connect(address, "missing"))
                .isInstanceOfSatisfying(NbdClientException.class, e -> assertThat(e.optionError()).isEqualTo(REP_ERR_UNKNOWN))
                .hasMessage("image 'missing' does not exist");
    }

    @Test
    void failedRequestCarriesItsErrnoAndBreaksTheConnection() throws Exception {
        try (NbdClient client = NbdClient.connect(address, "disk")) {
            client.write(SIZE, ByteBuffer.allocate(4096));

            assertThatThrownBy(client::receive)
                    .isInstanceOfSatisfying(NbdClientException.class, e -> assertThat(e.errno()).isEqualTo(NbdError.ENOSPC.wireValue()))
                    .hasMessage("WRITE at " + SIZE + " (4096 bytes) on export 'disk' failed with errno 28");
            assertThatThrownBy(client::flush).isInstanceOf(IllegalStateException.class);
        }
    }

    private void awaitHeld(int count) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (device.heldCount() < count) {
            assertThat(System.nanoTime()).as("requests held by the device").isLessThan(deadline);
            Thread.sleep(1);
        }
    }

    private static byte[] filled(int length, byte value) {
        byte[] bytes = new byte[length];
        Arrays.fill(bytes, value);
        return bytes;
    }
}
