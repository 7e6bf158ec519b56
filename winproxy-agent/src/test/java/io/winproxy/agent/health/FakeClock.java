package io.winproxy.agent.health;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;

/** A settable clock for tests (kube-proxy's fake clock): time moves only when {@link #step} is called. */
public final class FakeClock extends Clock {
    private final ZoneId zone;
    private volatile Instant now;

    public FakeClock(Instant start, ZoneId zone) {
        this.now = start;
        this.zone = zone;
    }

    public void step(Duration duration) {
        now = now.plus(duration);
    }

    @Override
    public ZoneId getZone() {
        return zone;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return new FakeClock(now, zone);
    }

    @Override
    public Instant instant() {
        return now;
    }
}
