package io.winproxy.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class TokenBucketTest {
    private final AtomicLong now = new AtomicLong();

    @Test
    void aBurstIsServedAtOnceAndTheNextRequestWaitsOneQpsInterval() {
        TokenBucket bucket = new TokenBucket(5, 10, now::get);

        for (int i = 0; i < 10; i++) {
            assertThat(bucket.reserve()).isZero();
        }
        assertThat(bucket.reserve()).isEqualTo(200_000_000L);
        assertThat(bucket.reserve()).isEqualTo(400_000_000L);
    }

    @Test
    void tokensRefillAtQpsUpToTheBurst() {
        TokenBucket bucket = new TokenBucket(5, 2, now::get);
        bucket.reserve();
        bucket.reserve();

        now.addAndGet(10_000_000_000L);

        assertThat(bucket.reserve()).isZero();
        assertThat(bucket.reserve()).isZero();
        assertThat(bucket.reserve()).isPositive();
    }

    @Test
    void aBurstOfZeroStillAllowsOneRequest() {
        TokenBucket bucket = new TokenBucket(1, 0, now::get);

        assertThat(bucket.reserve()).isZero();
        assertThat(bucket.reserve()).isEqualTo(1_000_000_000L);
    }

    @Test
    void tryAcquireNeverGoesIntoDebt() {
        TokenBucket bucket = new TokenBucket(1, 2, now::get);

        assertThat(bucket.tryAcquire()).isTrue();
        assertThat(bucket.tryAcquire()).isTrue();
        assertThat(bucket.tryAcquire()).isFalse();
        now.addAndGet(1_000_000_000L);
        assertThat(bucket.tryAcquire()).isTrue();
        assertThat(bucket.tryAcquire()).isFalse();
    }
}
