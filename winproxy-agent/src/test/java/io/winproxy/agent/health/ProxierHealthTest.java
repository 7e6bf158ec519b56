package io.winproxy.agent.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.NodeInfo;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProxierHealthTest {

    private static final Instant START = Instant.parse("2024-05-01T10:00:00Z");
    private final FakeClock clock = new FakeClock(START, ZoneOffset.UTC);
    private final ProxierHealth health = new ProxierHealth(Duration.ofSeconds(10), clock);

    @Test
    void isHealthyWithNoStatusBeforeAnyUpdate() {
        ProxyHealth result = health.health();

        assertThat(result.healthy()).isTrue();
        assertThat(result.status()).isEmpty();
        assertThat(result.lastUpdated()).isEqualTo(ProxyHealth.ZERO_TIME);
        assertThat(result.currentTime()).isEqualTo(START);
    }

    @Test
    void aQueuedFamilyThatNeverUpdatedIsIgnored() {
        health.queued(IpFamily.IPV4);
        clock.step(Duration.ofMinutes(5));

        assertThat(health.isHealthy()).isTrue();
    }

    @Test
    void reachingTheTimeoutExactlyIsUnhealthyAndJustBelowIsHealthy() {
        health.updated(IpFamily.IPV4);
        health.queued(IpFamily.IPV4);
        clock.step(Duration.ofSeconds(10).minusNanos(1));
        assertThat(health.isHealthy()).isTrue();

        clock.step(Duration.ofNanos(1));
        assertThat(health.isHealthy()).isFalse();
    }

    @Test
    void queueingAgainDoesNotMoveTheOldestPendingTimeForward() {
        health.updated(IpFamily.IPV4);
        health.queued(IpFamily.IPV4);
        clock.step(Duration.ofSeconds(6));
        health.queued(IpFamily.IPV4);
        clock.step(Duration.ofSeconds(6));

        assertThat(health.isHealthy()).isFalse();
    }

    @Test
    void reportsTheLatestUpdateOverAllFamiliesAndEachFamilyOnItsOwn() {
        health.updated(IpFamily.IPV6);
        clock.step(Duration.ofSeconds(3));
        health.updated(IpFamily.IPV4);
        health.queued(IpFamily.IPV6);
        clock.step(Duration.ofSeconds(10));

        ProxyHealth result = health.health();
        assertThat(result.lastUpdated()).isEqualTo(START.plusSeconds(3));
        assertThat(result.healthy()).isFalse();
        assertThat(result.status()).containsExactly(
                Map.entry(IpFamily.IPV4, new ProxyHealth.FamilyHealth(START.plusSeconds(3), true)),
                Map.entry(IpFamily.IPV6, new ProxyHealth.FamilyHealth(START, false)));
    }

    @Test
    void updatingOneFamilyDoesNotRepairTheOther() {
        health.updated(IpFamily.IPV4);
        health.updated(IpFamily.IPV6);
        health.queued(IpFamily.IPV4);
        health.queued(IpFamily.IPV6);
        clock.step(Duration.ofSeconds(25));

        health.updated(IpFamily.IPV4);
        assertThat(health.isHealthy()).isFalse();
        health.updated(IpFamily.IPV6);
        assertThat(health.isHealthy()).isTrue();
    }

    @Test
    void theNodeIsIneligibleUntilKnownWhenDeletingOrMarkedForDeletionAndAfterItsDeletion() {
        assertThat(health.nodeEligible()).isFalse();

        health.syncNode(node(false, List.of("other")));
        assertThat(health.nodeEligible()).isTrue();
        health.syncNode(node(false, List.of("other", ProxierHealth.TO_BE_DELETED_TAINT)));
        assertThat(health.nodeEligible()).isFalse();
        health.syncNode(node(false, List.of()));
        assertThat(health.nodeEligible()).isTrue();
        health.syncNode(node(true, List.of()));
        assertThat(health.nodeEligible()).isFalse();
        health.syncNode(null);
        assertThat(health.nodeEligible()).isFalse();
    }

    @Test
    void theTimeoutIsTwiceTheSyncPeriodAndMustBePositive() {
        assertThat(ProxierHealth.timeoutForSyncPeriod(Duration.ofSeconds(30))).isEqualTo(Duration.ofSeconds(60));
        assertThatThrownBy(() -> new ProxierHealth(Duration.ZERO, clock))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("healthTimeout");
    }

    static NodeInfo node(boolean beingDeleted, List<String> taints) {
        return new NodeInfo("node-a", null, null, null, null, beingDeleted, taints);
    }

    @Test
    void aForgottenFamilyLeavesTheStatusAndCannotMakeTheProxierLate() {
        health.updated(IpFamily.IPV4);
        health.updated(IpFamily.IPV6);
        health.queued(IpFamily.IPV6);
        clock.step(Duration.ofSeconds(10));
        assertThat(health.isHealthy()).isFalse();

        health.forget(IpFamily.IPV6);

        assertThat(health.health().status()).containsOnlyKeys(IpFamily.IPV4);
        assertThat(health.isHealthy()).isTrue();
    }
}
