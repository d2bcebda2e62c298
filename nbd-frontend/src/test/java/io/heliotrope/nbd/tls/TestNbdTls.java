package io.heliotrope.nbd.tls;

import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.nbd.TestingBlockDevice;
import io.heliotrope.nbd.TestingExportCatalog;
import io.heliotrope.nbd.server.BaseAllocation;
import io.heliotrope.nbd.server.NbdMetrics;
import io.heliotrope.nbd.server.NbdServer;
import io.heliotrope.nbd.server.NbdServerConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBufAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static io.heliotrope.nbd.protocol.NbdConstants.OPT_ABORT;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_EXPORT_NAME;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_GO;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_INFO;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_LIST;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_LIST_META_CONTEXT;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_SET_META_CONTEXT;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_STARTTLS;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_STRUCTURED_REPLY;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ACK;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_INVALID;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_POLICY;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_TLS_REQD;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_UNSUP;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_META_CONTEXT;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_SERVER;
import static io.heliotrope.nbd.protocol.NbdConstants.TRANSMISSION_READ_ONLY;
import static io.heliotrope.nbd.protocol.NbdConstants.TRANSMISSION_SEND_DF;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code NBD_OPT_STARTTLS} against a real server on loopback, with the certificates of
 * {@code src/test/resources/tls} (a CA, a server, clients alice, bob and carol, and a client
 * of another CA that calls itself alice) and its {@code authz}: alice reads and writes disk,
 * bob only reads it, everyone reads public-*, carol has nothing else.
 */
class TestNbdTls {
    private static final int NBD_CMD_WRITE = 1;
    private static final int NBD_CMD_BLOCK_STATUS = 7;
    private static final int EPERM = 1;
    private static final int EINVAL = 22;
    private static final Path FIXTURES = fixtures();
    private static final byte[] NONE = new byte[0];

    private final BlockDevice disk = new TestingBlockDevice(1 << 20, ByteBufAllocator.DEFAULT, true, false);
    private final BlockDevice published = new TestingBlockDevice(1 << 20, ByteBufAllocator.DEFAULT, true, false);
    private NbdServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void requireRefusesEveryOptionButStartTlsAndListsNothingBeforeIt() throws Exception {
        try (OptionClient client = connect(TlsMode.REQUIRE, null)) {
            for (int option : new int[] {OPT_LIST, OPT_STRUCTURED_REPLY, OPT_INFO, OPT_GO, OPT_LIST_META_CONTEXT}) {
                List<OptionClient.Reply> replies = client.option(option, option == OPT_LIST || option == OPT_STRUCTURED_REPLY ? NONE : go("disk"));
                assertThat(replies).as("option %d before TLS", option).extracting(OptionClient.Reply::type).containsExactly(REP_ERR_TLS_REQD);
            }

            assertThat(client.option(OPT_STARTTLS, NONE)).extracting(OptionClient.Reply::type).containsExactly(REP_ACK);
            assertThat(client.startTls(FIXTURES, "alice", FIXTURES)).isIn("TLSv1.3", "TLSv1.2");

            assertThat(client.option(OPT_LIST, NONE)).extracting(OptionClient.Reply::type).containsExactly(REP_SERVER, REP_SERVER, REP_ACK);
        }
    }

    @Test
    void exportNameWithoutTlsEndsTheSessionUnderRequire() throws Exception {
        try (OptionClient client = connect(TlsMode.REQUIRE, null)) {
            client.send(OPT_EXPORT_NAME, "disk".getBytes(StandardCharsets.UTF_8));

            assertThat(client.closedByServer()).as("NBD_OPT_EXPORT_NAME has no error reply: the server closes").isTrue();
        }
    }

    @Test
    void abortIsAnsweredWithoutTls() throws Exception {
        try (OptionClient client = connect(TlsMode.REQUIRE, null)) {
            assertThat(client.option(OPT_ABORT, NONE)).extracting(OptionClient.Reply::type).containsExactly(REP_ACK);
        }
    }

    @Test
    void startTlsInTheWrongStateIsRefused() throws Exception {
        try (OptionClient client = connect(TlsMode.ON, null)) {
            assertThat(client.option(OPT_STARTTLS, new byte[] {1})).as("STARTTLS carries no data").extracting(OptionClient.Reply::type)
                    .containsExactly(REP_ERR_INVALID);
            client.option(OPT_STARTTLS, NONE);
            client.startTls(FIXTURES, "alice", FIXTURES);

            assertThat(client.option(OPT_STARTTLS, NONE)).as("STARTTLS once TLS is on").extracting(OptionClient.Reply::type).containsExactly(REP_ERR_INVALID);
            assertThat(client.option(OPT_LIST, NONE)).as("the session goes on").extracting(OptionClient.Reply::type).endsWith(REP_ACK);
        }
        server.close();
        server = null;
        try (OptionClient client = connect(TlsMode.OFF, null)) {
            assertThat(client.option(OPT_STARTTLS, NONE)).extracting(OptionClient.Reply::type).containsExactly(REP_ERR_UNSUP);
        }
    }

    @Test
    void whatWasNegotiatedBeforeStartTlsIsDropped() throws Exception {
        try (OptionClient client = connect(TlsMode.ON, null)) {
            assertThat(client.option(OPT_STRUCTURED_REPLY, NONE)).extracting(OptionClient.Reply::type).containsExactly(REP_ACK);
            assertThat(client.option(OPT_SET_META_CONTEXT, metaContext("disk", BaseAllocation.NAME))).extracting(OptionClient.Reply::type)
                    .containsExactly(REP_META_CONTEXT, REP_ACK);
            client.option(OPT_STARTTLS, NONE);
            client.startTls(FIXTURES, "alice", FIXTURES);

            assertThat(client.option(OPT_SET_META_CONTEXT, metaContext("disk", BaseAllocation.NAME))).as("structured replies are gone")
                    .extracting(OptionClient.Reply::type).containsExactly(REP_ERR_INVALID);
            assertThat(client.option(OPT_STRUCTURED_REPLY, NONE)).extracting(OptionClient.Reply::type).containsExactly(REP_ACK);
            List<OptionClient.Reply> go = client.option(OPT_GO, go("disk"));
            assertThat(OptionClient.transmissionFlags(go) & TRANSMISSION_SEND_DF).as("structured replies negotiated again").isNotZero();

            assertThat(client.request(NBD_CMD_BLOCK_STATUS, 0, null, 4096)).as("no metadata context selected since TLS started").isEqualTo(EINVAL);
        }
    }

    @Test
    void plaintextClientsStillConnectWhenTlsIsOn() throws Exception {
        try (OptionClient client = connect(TlsMode.ON, null)) {
            List<OptionClient.Reply> go = client.option(OPT_GO, go("disk"));

            assertThat(go).extracting(OptionClient.Reply::type).endsWith(REP_ACK);
            assertThat(client.request(NBD_CMD_WRITE, 0, new byte[512], 512)).isZero();
        }
    }

    @Test
    void identitiesOpenWhatTheAuthorizationAllows() throws Exception {
        Path authz = FIXTURES.resolve("authz");
        try (OptionClient alice = connect(TlsMode.REQUIRE, authz)) {
            alice.option(OPT_STARTTLS, NONE);
            alice.startTls(FIXTURES, "alice", FIXTURES);
            List<OptionClient.Reply> go = alice.option(OPT_GO, go("disk"));

            assertThat(OptionClient.transmissionFlags(go) & TRANSMISSION_READ_ONLY).isZero();
            assertThat(alice.request(NBD_CMD_WRITE, 0, new byte[512], 512)).isZero();
            assertThat(alice.request(NBD_CMD_WRITE, 0, new byte[256 << 10], 256 << 10)).as("a payload over many TLS records").isZero();
        }
        try (OptionClient bob = connect(TlsMode.REQUIRE, authz)) {
            bob.option(OPT_STARTTLS, NONE);
            bob.startTls(FIXTURES, "bob", FIXTURES);
            List<OptionClient.Reply> go = bob.option(OPT_GO, go("disk"));

            assertThat(OptionClient.transmissionFlags(go) & TRANSMISSION_READ_ONLY).as("bob may only read").isNotZero();
            assertThat(bob.request(NBD_CMD_WRITE, 0, new byte[512], 512)).isEqualTo(EPERM);
        }
        try (OptionClient carol = connect(TlsMode.REQUIRE, authz)) {
            carol.option(OPT_STARTTLS, NONE);
            carol.startTls(FIXTURES, "carol", FIXTURES);

            List<OptionClient.Reply> list = carol.option(OPT_LIST, NONE);
            assertThat(list).extracting(OptionClient.Reply::type).containsExactly(REP_SERVER, REP_ACK);
            byte[] listed = list.get(0).data();
            assertThat(new String(listed, 4, ByteBuffer.wrap(listed).getInt(), StandardCharsets.UTF_8)).isEqualTo("public-1");
            List<OptionClient.Reply> refused = carol.option(OPT_GO, go("disk"));
            assertThat(refused).extracting(OptionClient.Reply::type).containsExactly(REP_ERR_POLICY);
            assertThat(refused.get(0).text()).contains("carol").contains("disk");
            assertThat(carol.option(OPT_LIST_META_CONTEXT, metaContext("disk", BaseAllocation.NAME))).extracting(OptionClient.Reply::type)
                    .containsExactly(REP_ERR_POLICY);
        }
    }

    @Test
    void certificateOfAnotherCaIsRefused() throws Exception {
        try (OptionClient mallory = connect(TlsMode.REQUIRE, null)) {
            mallory.option(OPT_STARTTLS, NONE);

            assertThatThrownBy(() -> {
                mallory.startTls(FIXTURES.resolve("other"), "mallory", FIXTURES);
                mallory.option(OPT_LIST, NONE);
            }).as("a certificate named alice, from another CA").isInstanceOf(IOException.class);
        }
        try (OptionClient alice = connect(TlsMode.REQUIRE, null)) {
            alice.option(OPT_STARTTLS, NONE);
            alice.startTls(FIXTURES, "alice", FIXTURES);
            assertThat(alice.option(OPT_LIST, NONE)).as("the server still serves").extracting(OptionClient.Reply::type).endsWith(REP_ACK);
        }
    }

    @Test
    void authorizationNeedsRequire() {
        assertThatThrownBy(() -> NbdTls.load(TlsMode.ON, new TlsDirectory(FIXTURES), FIXTURES.resolve("authz")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("require");
        assertThatThrownBy(() -> NbdTls.load(TlsMode.ON, new TlsDirectory(FIXTURES.resolve("other")), null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ca-cert.pem");
    }

    private OptionClient connect(TlsMode mode, Path authz) throws IOException {
        if (server == null) {
            NbdTls tls = mode == TlsMode.OFF ? NbdTls.OFF : NbdTls.load(mode, new TlsDirectory(FIXTURES), authz);
            server = new NbdServer(new NbdServerConfig(new InetSocketAddress("127.0.0.1", 0), 1, NbdServerConfig.DEFAULT_POLL),
                    new TestingExportCatalog(Map.of("disk", disk, "public-1", published)), List.of(new BaseAllocation()),
                    new NbdMetrics(new SimpleMeterRegistry()), tls);
        }
        return new OptionClient(server.localAddress());
    }

    private static byte[] go(String export) {
        byte[] name = export.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(4 + name.length + 2).putInt(name.length).put(name).putShort((short) 0).array();
    }

    private static byte[] metaContext(String export, String query) {
        byte[] name = export.getBytes(StandardCharsets.UTF_8);
        byte[] queried = query.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(12 + name.length + queried.length).putInt(name.length).put(name).putInt(1).putInt(queried.length).put(queried).array();
    }

    private static Path fixtures() {
        try {
            return Path.of(TestNbdTls.class.getResource("/tls/ca-cert.pem").toURI()).getParent();
        } catch (URISyntaxException e) {
            throw new AssertionError(e);
        }
    }
}
