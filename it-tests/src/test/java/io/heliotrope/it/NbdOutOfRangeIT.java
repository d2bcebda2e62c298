package io.heliotrope.it;

import io.heliotrope.nbd.RawNbdClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.InetSocketAddress;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Requests past the end of an export, which qemu and libnbd refuse to send themselves,
 * get the errno the NBD protocol asks for, and the connection keeps serving.
 */
class NbdOutOfRangeIT {
    private static final int EINVAL = 22;
    private static final int ENOSPC = 28;

    @RegisterExtension
    static final SiteExtension site = new SiteExtension();

    @Test
    void pastEndRequestsGetSpecErrorsAndConnectionStaysUsable() throws Exception {
        site.get().createImage("edge", "1M");
        byte[] block = TestData.randomBytes(4096);

        try (RawNbdClient nbd = new RawNbdClient(new InetSocketAddress("127.0.0.1", site.get().nbdPort()), "edge")) {
            assertThat(nbd.size()).isEqualTo(1 << 20);
            assertThat(nbd.write(nbd.size() - 4096, block)).as("write of the last block").isZero();

            assertThat(nbd.read(nbd.size(), 4096).error()).as("read starting at the end").isEqualTo(EINVAL);
            assertThat(nbd.read(nbd.size() - 512, 1024).error()).as("read crossing the end").isEqualTo(EINVAL);
            assertThat(nbd.write(nbd.size() - 2048, block)).as("write crossing the end").isEqualTo(ENOSPC);

            RawNbdClient.Reply last = nbd.read(nbd.size() - 4096, 4096);
            assertThat(last.error()).isZero();
            assertThat(last.data()).as("the refused write changed nothing").isEqualTo(block);
        }
    }
}
