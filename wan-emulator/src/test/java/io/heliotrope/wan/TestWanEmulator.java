package io.heliotrope.wan;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestWanEmulator {
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress("127.0.0.1", 0);

    @Test
    void linksAreFoundByNameAndClosedWithTheEmulator() throws IOException {
        InetSocketAddress address;
        try (TestingServer server = TestingServer.echo(); WanEmulator emulator = new WanEmulator()) {
            WanLink virginiaToTaiwan = emulator.addLink("virginia-taiwan", ANY_PORT, server.address(), LinkConfig.direct());
            WanLink taiwanToVirginia = emulator.addLink("taiwan-virginia", ANY_PORT, server.address(), LinkConfig.direct());
            address = virginiaToTaiwan.listenAddress();

            assertThat(emulator.link("virginia-taiwan")).isSameAs(virginiaToTaiwan);
            assertThat(emulator.links()).containsExactlyInAnyOrder(virginiaToTaiwan, taiwanToVirginia);
            assertThat(TestingClient.exchange(taiwanToVirginia.listenAddress(), new byte[] {1, 2, 3}))
                    .containsExactly(1, 2, 3);
            assertThat(taiwanToVirginia.forwardBytes()).isEqualTo(3);
            assertThat(virginiaToTaiwan.forwardBytes()).isZero();

            emulator.removeLink("taiwan-virginia");
            assertThat(emulator.links()).containsExactly(virginiaToTaiwan);
            Waits.until(() -> refuses(taiwanToVirginia.listenAddress()), Duration.ofSeconds(10));
        }
        assertThat(refuses(address)).isTrue();
        LeakCheck.assertNoLeaks();
    }

    private static boolean refuses(InetSocketAddress address) {
        try {
            TestingClient.connect(address).close();
            return false;
        } catch (ConnectException e) {
            return true;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void rejectsDuplicateAndUnknownNames() {
        try (WanEmulator emulator = new WanEmulator(1)) {
            emulator.addLink("a-b", ANY_PORT, new InetSocketAddress("127.0.0.1", 9), LinkConfig.direct());

            assertThatThrownBy(() -> emulator.addLink("a-b", ANY_PORT, ANY_PORT, LinkConfig.direct()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("link a-b already exists");
            assertThatThrownBy(() -> emulator.link("b-a"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("no link named b-a");
        }
    }

    @Test
    void portInUseIsReported() throws IOException {
        try (ServerSocket taken = new ServerSocket(0); WanEmulator emulator = new WanEmulator(1)) {
            InetSocketAddress address = new InetSocketAddress("127.0.0.1", taken.getLocalPort());

            assertThatThrownBy(() -> emulator.addLink("a-b", address, ANY_PORT, new LinkConfig(Duration.ZERO, 0)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("link a-b: cannot listen on " + address);
            assertThat(emulator.links()).isEmpty();
        }
    }
}
