package io.winproxy.agent.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ListAssert;
import org.junit.jupiter.api.Test;

/** Ports upstream's runner tests (kube-proxy-common.md section 7.4) onto a manual clock. */
class BoundedFrequencyRunnerTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private final List<Long> calls = new ArrayList<>();
    private boolean fail;

    private BoundedFrequencyRunner runner(long minMs, long retryMs, long maxMs) {
        BoundedFrequencyRunner r = new BoundedFrequencyRunner("test", () -> {
            calls.add(scheduler.nowMillis());
            return !fail;
        }, Duration.ofMillis(minMs), Duration.ofMillis(retryMs), Duration.ofMillis(maxMs), scheduler);
        r.start();
        return r;
    }

    /** Moves the clock {@code ms} forward; then the start times of the runs so far, to check. */
    private ListAssert<Long> callsAfter(long ms) {
        scheduler.advanceMillis(ms);
        return assertThat(calls);
    }

    /** A started runner whose first run (at 0 ms) has just failed. */
    private BoundedFrequencyRunner failedOnce(long minMs, long retryMs, long maxMs) {
        BoundedFrequencyRunner r = runner(minMs, retryMs, maxMs);
        fail = true;
        r.run();
        scheduler.advanceMillis(0);
        return r;
    }

    /** From now on the runner's function succeeds; {@code ms} later a run is requested. */
    private void recoverAndRequestAfter(BoundedFrequencyRunner r, long ms) {
        fail = false;
        scheduler.advanceMillis(ms);
        r.run();
    }

    @Test
    void runsAreRateLimitedToMinIntervalAndHappenAtLeastEveryMaxInterval() {
        BoundedFrequencyRunner r = runner(1000, 5000, 10000);
        r.run();
        callsAfter(0).containsExactly(0L);

        scheduler.advanceMillis(500);
        r.run();
        scheduler.advanceMillis(499);
        r.run();
        assertThat(calls).hasSize(1);
        callsAfter(1).containsExactly(0L, 1000L);

        r.run();
        scheduler.advanceMillis(1);
        r.run();
        callsAfter(998).hasSize(2);
        callsAfter(1).containsExactly(0L, 1000L, 2000L);

        callsAfter(1000).hasSize(3);
        callsAfter(9000).containsExactly(0L, 1000L, 2000L, 12000L);

        scheduler.advanceMillis(1);
        r.run();
        callsAfter(998).hasSize(4);
        callsAfter(1).containsExactly(0L, 1000L, 2000L, 12000L, 13000L);
    }

    @Test
    void theCoolDownIsCountedFromTheStartOfTheRunNotItsEnd() {
        long[] runMillis = {800};
        BoundedFrequencyRunner r = new BoundedFrequencyRunner("slow", () -> {
            calls.add(scheduler.nowMillis());
            scheduler.elapseMillis(runMillis[0]);
            return true;
        }, Duration.ofMillis(1000), Duration.ofMillis(5000), Duration.ofMillis(10000), scheduler);
        r.start();
        r.run();
        scheduler.advanceMillis(0);
        assertThat(scheduler.nowMillis()).isEqualTo(800L);
        r.run();
        callsAfter(199).containsExactly(0L);
        callsAfter(1).as("1000 ms after the previous start, not 1000 ms after its end (1800)")
                .containsExactly(0L, 1000L);

        runMillis[0] = 1500;
        scheduler.advanceMillis(1000);
        r.run();
        callsAfter(0).hasSize(3).last().isEqualTo(2800L);
        r.run();
        assertThat(scheduler.nowMillis()).isEqualTo(4300L);
        callsAfter(0).as("a run longer than minInterval is followed at once by what it coalesced")
                .containsExactly(0L, 1000L, 2800L, 4300L);
    }

    @Test
    void nothingRunsAtStartAndTheFirstTimedRunComesAtMaxInterval() {
        runner(1000, 5000, 10000);
        callsAfter(9999).isEmpty();
        callsAfter(1).containsExactly(10000L);
        callsAfter(10000).containsExactly(10000L, 20000L);
    }

    @Test
    void aFailedRunIsRetriedAfterTheRetryIntervalNotAfterMinInterval() {
        failedOnce(1000, 5000, 10000);
        callsAfter(4999).containsExactly(0L);
        callsAfter(1).containsExactly(0L, 5000L);
    }

    @Test
    void aSuccessfulRunCancelsThePendingRetry() {
        BoundedFrequencyRunner r = failedOnce(1000, 5000, 10000);
        recoverAndRequestAfter(r, 1000);
        callsAfter(0).containsExactly(0L, 1000L);
        callsAfter(4000).as("no retry at +5 s").containsExactly(0L, 1000L);
        callsAfter(6000).containsExactly(0L, 1000L, 11000L);
    }

    @Test
    void aRunRequestedDuringCoolDownAfterAFailureRunsWhenTheCoolDownEndsAndCancelsTheRetry() {
        BoundedFrequencyRunner r = failedOnce(1000, 5000, 10000);
        recoverAndRequestAfter(r, 100);
        callsAfter(899).containsExactly(0L);
        callsAfter(1).containsExactly(0L, 1000L);
        callsAfter(9999).containsExactly(0L, 1000L);
        callsAfter(1).containsExactly(0L, 1000L, 11000L);
    }

    @Test
    void aRetryShorterThanMinIntervalWaitsForMinInterval() {
        runner(5000, 1000, 10000).run();
        fail = true;
        scheduler.advanceMillis(0);
        fail = false;
        callsAfter(1000).containsExactly(0L);
        callsAfter(4000).containsExactly(0L, 5000L);
        callsAfter(10000).containsExactly(0L, 5000L, 15000L);
    }

    @Test
    void aThrowingFunctionCountsAsAFailureAndTheRunnerKeepsGoing() {
        List<Long> attempts = new ArrayList<>();
        BoundedFrequencyRunner r = new BoundedFrequencyRunner("boom", () -> {
            attempts.add(scheduler.nowMillis());
            throw new IllegalStateException("boom");
        }, Duration.ofMillis(100), Duration.ofMillis(500), Duration.ofSeconds(10), scheduler);
        r.start();
        r.run();
        scheduler.advanceMillis(5500);
        assertThat(attempts).as("retries back off: +500, +1000, +2000, then +2000").containsExactly(0L, 500L, 1500L,
                3500L, 5500L);
    }

    @Test
    void failuresInARowBackOffUpToFourTimesTheRetryIntervalAndASuccessResetsIt() {
        BoundedFrequencyRunner r = failedOnce(100, 5000, 60000);
        callsAfter(5000 + 10000 + 20000 + 20000).containsExactly(0L, 5000L, 15000L, 35000L, 55000L);
        fail = false;
        callsAfter(20000).hasSize(6).last().isEqualTo(75000L);
        fail = true;
        r.run();
        scheduler.advanceMillis(100);
        long failedAt = calls.get(calls.size() - 1);
        scheduler.advanceMillis(5000);
        assertThat(calls.get(calls.size() - 1)).as("after a success the first retry is 5 s again")
                .isEqualTo(failedAt + 5000);
    }

    @Test
    void stopPreventsFurtherRuns() {
        BoundedFrequencyRunner r = runner(1000, 5000, 10000);
        r.run();
        scheduler.advanceMillis(0);
        r.run();
        r.stop();
        scheduler.advanceMillis(60000);
        r.run();
        callsAfter(60000).containsExactly(0L);
    }

    @Test
    void aMaxIntervalBelowTheMinIntervalIsRejected() {
        assertThatThrownBy(() -> new BoundedFrequencyRunner("bad", () -> true, Duration.ofSeconds(2),
                Duration.ofSeconds(1), Duration.ofSeconds(1), scheduler))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxInterval");
    }

    @Test
    void theRealSchedulerRunsAgainAfterMinInterval() throws Exception {
        try (ExecutorScheduler real = new ExecutorScheduler("runner-test")) {
            CountDownLatch one = new CountDownLatch(1);
            CountDownLatch two = new CountDownLatch(2);
            BoundedFrequencyRunner r = new BoundedFrequencyRunner("real", () -> {
                one.countDown();
                two.countDown();
                return true;
            }, Duration.ofMillis(50), Duration.ofMillis(80), Duration.ofSeconds(30), real);
            r.start();
            r.run();
            assertThat(one.await(5, TimeUnit.SECONDS)).isTrue();
            r.run();
            assertThat(two.await(5, TimeUnit.SECONDS)).isTrue();
            r.stop();
        }
    }

    @Test
    void aRunThatAsksToContinueIsFollowedAtOnceWithoutTheCoolDownUntilItStopsAsking() {
        int[] chunksLeft = {2};
        BoundedFrequencyRunner[] self = new BoundedFrequencyRunner[1];
        self[0] = new BoundedFrequencyRunner("test", () -> {
            calls.add(scheduler.nowMillis());
            if (chunksLeft[0]-- > 0) {
                self[0].continueNow();
            }
            return true;
        }, Duration.ofMillis(1000), Duration.ofMillis(5000), Duration.ofMillis(10000), scheduler);
        self[0].start();

        self[0].run();
        callsAfter(0).containsExactly(0L, 0L, 0L);

        self[0].run();
        callsAfter(999).hasSize(3);
        callsAfter(1).containsExactly(0L, 0L, 0L, 1000L);
    }
}
