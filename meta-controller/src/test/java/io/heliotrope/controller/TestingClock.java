package io.heliotrope.controller;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** A clock that stands still until a test moves it. */
public final class TestingClock extends Clock {
    private final AtomicLong millis;

    public TestingClock(long startMillis) {
        this.millis = new AtomicLong(startMillis);
    }

    public void advance(Duration duration) {
        millis.addAndGet(duration.toMillis());
    }

    @Override
    public long millis() {
        return millis.get();
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis.get());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("a testing clock has no zones");
    }
}
