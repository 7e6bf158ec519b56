package io.winproxy.agent.dataplane;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ObjectBackoffTest {
    private final AtomicLong nanos = new AtomicLong(5_000_000_000L);
    private final ObjectBackoff backoff = new ObjectBackoff(Duration.ofSeconds(1), Duration.ofSeconds(8), nanos::get);

    private void advance(Duration d) {
        nanos.addAndGet(d.toNanos());
    }

    @Test
    void theFirstFailureWaitsTheInitialDelayExactlyThenEachFailureDoublesItUpToTheCap() {
        String lb = "10.96.0.80:80/TCP";
        assertThat(backoff.ready(lb)).isTrue();
        backoff.failed(lb);
        assertThat(backoff.failures(lb)).isEqualTo(1);
        advance(Duration.ofMillis(999));
        assertThat(backoff.ready(lb)).as("before the first step of 1 s").isFalse();
        advance(Duration.ofMillis(1));
        assertThat(backoff.ready(lb)).isTrue();

        long[] expectedSeconds = {2, 4, 8, 8};
        for (long seconds : expectedSeconds) {
            backoff.failed(lb);
            advance(Duration.ofSeconds(seconds).minusMillis(1));
            assertThat(backoff.ready(lb)).as("%d s", seconds).isFalse();
            advance(Duration.ofMillis(1));
            assertThat(backoff.ready(lb)).isTrue();
        }
    }

    @Test
    void aSuccessResetsAnObjectAndObjectsBackOffIndependently() {
        backoff.failed("a");
        backoff.failed("a");
        assertThat(backoff.ready("b")).isTrue();
        backoff.succeeded("a");
        assertThat(backoff.failures("a")).isZero();
        assertThat(backoff.ready("a")).isTrue();
        backoff.failed("a");
        advance(Duration.ofSeconds(1));
        assertThat(backoff.ready("a")).as("back to the first step").isTrue();
    }
}
