package io.heliotrope.cli.print;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class TestProgress {
    private static final long MIB = 1 << 20;
    private static final long SECOND = 1_000_000_000L;

    @Test
    void lineShowsDoneTotalRateAndTimeLeft() {
        assertThat(Progress.line("vm1", 412 * MIB, 1024 * MIB, 100 * MIB))
                .isEqualTo("vm1: 412.0 MiB of 1.0 GiB (40%), 100.0 MiB/s, 7 s left");
    }

    @Test
    void lineWithoutARateYetShowsNoTimeLeft() {
        assertThat(Progress.line("vm1", 0, 1024 * MIB, Double.NaN)).isEqualTo("vm1: 0 B of 1.0 GiB (0%)");
    }

    @Test
    void lineWhenDoneOrStalledShowsNoTimeLeft() {
        assertThat(Progress.line("vm1", 1024 * MIB, 1024 * MIB, 50 * MIB)).isEqualTo("vm1: 1.0 GiB of 1.0 GiB (100%), 50.0 MiB/s");
        assertThat(Progress.line("vm1", 10 * MIB, 1024 * MIB, 0)).isEqualTo("vm1: 10.0 MiB of 1.0 GiB (0%), 0 B/s");
    }

    @Test
    void longLabelsKeepTheirEnd() {
        assertThat(Progress.line("a-very-long-image-name-that-goes-on-and-on", 0, 4096, Double.NaN))
                .isEqualTo("...mage-name-that-goes-on-and-on: 0 B of 4.0 KiB (0%)");
    }

    @Test
    void timeLeftInSecondsMinutesOrHours() {
        assertThat(Progress.timeLeft(59)).isEqualTo("59 s");
        assertThat(Progress.timeLeft(61)).isEqualTo("1 min 1 s");
        assertThat(Progress.timeLeft(3 * 3600 + 125)).isEqualTo("3 h 2 min");
    }

    @Test
    void drawsOnOneLineWithTheRateOfTheLastDrawsAndErasesItAtTheEnd() {
        AtomicLong now = new AtomicLong();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        try (Progress progress = new Progress("img", 100 * MIB, now::get, out)) {
            progress.draw();
            now.addAndGet(SECOND);
            progress.add(10 * MIB);
            progress.draw();
            now.addAndGet(SECOND);
            progress.set(40 * MIB);
            progress.draw();
        }

        assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo(
                "\r\033[Kimg: 0 B of 100.0 MiB (0%)"
                        + "\r\033[Kimg: 10.0 MiB of 100.0 MiB (10%), 10.0 MiB/s, 9 s left"
                        + "\r\033[Kimg: 40.0 MiB of 100.0 MiB (40%), 20.0 MiB/s, 3 s left"
                        + "\r\033[K");
    }

    @Test
    void rateForgetsDrawsOlderThanItsWindow() {
        AtomicLong now = new AtomicLong();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (Progress progress = new Progress("img", 1000 * MIB, now::get, new PrintStream(bytes, true, StandardCharsets.UTF_8))) {
            progress.draw();
            now.addAndGet(SECOND);
            progress.add(500 * MIB);
            for (int i = 0; i < 12; i++) {
                progress.draw();
                now.addAndGet(SECOND);
                progress.add(MIB);
            }
            bytes.reset();
            progress.draw();
        }

        assertThat(bytes.toString(StandardCharsets.UTF_8)).as("12 draws back: 1 MiB/s, not the burst of 500 MiB before")
                .startsWith("\r\033[Kimg: 512.0 MiB of 1000.0 MiB (51%), 1.0 MiB/s, 8 min 8 s left");
    }
}
