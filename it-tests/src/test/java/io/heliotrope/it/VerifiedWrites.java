package io.heliotrope.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client that writes steadily and checks every block it wrote: fio's NBD engine, 4 KiB random
 * writes over {@code size} bytes of the export at {@code rate}, each block once, each carrying
 * a crc32c header that fio's verify phase reads back and checks once the writes end. The same
 * seed lays out the same blocks, so {@link #verifyAgain} checks them once more through a new
 * connection (a new open), as a later client would read them.
 */
record VerifiedWrites(String uri, String size, String rate) {
    /** The job of both passes: its seed fixes the order of the blocks and their contents. */
    private List<String> job() {
        return new ArrayList<>(List.of("fio", "--name=steady", "--ioengine=nbd", "--uri=" + uri, "--rw=randwrite", "--bs=4k", "--size=" + size,
                "--iodepth=4", "--randseed=28", "--verify=crc32c", "--verify_fatal=1", "--do_verify=1",
                // No verify state file left in the working directory: the seed alone lays the blocks out again.
                "--verify_state_save=0"));
    }

    /** Starts the writes, and the verify phase after them; the process exits 0 only if no I/O failed and every block verified. */
    ChildProcess start() {
        List<String> command = job();
        command.add("--rate=" + rate);
        return ChildProcess.start("fio", command);
    }

    /** Waits for {@code fio} to end, and fails unless no I/O failed and every block verified. */
    static String awaitSuccess(ChildProcess fio, Duration timeout) {
        Await.until("fio ended", timeout, () -> !fio.isAlive());
        assertThat(fio.exitCode()).as("fio's exit code; its output:%n%s", fio.output()).isZero();
        assertThat(fio.output()).as("fio's output").contains("err= 0").doesNotContain("verify: bad");
        return fio.output();
    }

    /** Reads every block written back through a new connection and checks it; fails unless each one verifies. */
    void verifyAgain() {
        List<String> command = job();
        command.add("--verify_only");
        Tools.Result result = Tools.run(Tools.DEFAULT_TIMEOUT, command);
        assertThat(result.exitCode()).as("fio --verify_only; its output:%n%s%s", result.stdout(), result.stderr()).isZero();
        assertThat(result.stdout()).as("fio --verify_only's output").contains("err= 0").doesNotContain("verify: bad");
    }
}
