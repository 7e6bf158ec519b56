package io.winproxy.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class InitialListTrackerTest {
    private final AtomicInteger fired = new AtomicInteger();
    private final InitialListTracker tracker = new InitialListTracker(fired::incrementAndGet);

    @Test
    void itFiresOnlyOnceEveryListedKeyHasBeenDelivered() {
        tracker.delivered("a");
        tracker.listed(List.of("a", "b"));
        assertThat(fired).hasValue(0);

        tracker.delivered("b");

        assertThat(fired).hasValue(1);
        assertThat(tracker.isDone()).isTrue();
    }

    @Test
    void anEmptyListFiresAtOnce() {
        tracker.listed(List.of());

        assertThat(fired).hasValue(1);
    }

    @Test
    void itFiresExactlyOnce() {
        tracker.listed(List.of("a"));
        tracker.delivered("a");
        tracker.delivered("a");
        tracker.listed(List.of("c"));

        assertThat(fired).hasValue(1);
    }

    @Test
    void deliveriesBeforeTheListCompletesCount() {
        tracker.delivered("a");
        tracker.delivered("b");

        tracker.listed(List.of("a", "b"));

        assertThat(fired).hasValue(1);
    }
}
