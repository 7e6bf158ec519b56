package io.winproxy.agent.dataplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsCall;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.emulator.HnsObjectKind;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import io.winproxy.hns.model.SchemaVersion;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class LoadBalancerCacheTest {
    private static final Duration PERIOD = Duration.ofSeconds(30);

    private final HnsEmulator hns = HnsEmulator.inMemory();
    private final AtomicLong nanos = new AtomicLong(1);
    private final LoadBalancerCache cache = new LoadBalancerCache(PERIOD, nanos::get);

    @BeforeEach
    void tenLoadBalancers() {
        EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.L2BRIDGE, "cbr0", "win-a");
        host.syncNetwork(List.of(new EmulatedHost.Node("win-a", "10.244.1.0/24", "192.168.1.11")));
        String ep = host.ensureLocalEndpoint("10.244.1.5").id();
        for (int i = 0; i < 10; i++) {
            hns.createLoadBalancer(new HostComputeLoadBalancer(null, List.of(ep), "", List.of("10.96.0." + (10 + i)),
                    List.of(new LoadBalancerPortMapping(6, 80, 80, 0, 0)), SchemaVersion.V2, 0));
        }
        hns.journal().reset();
    }

    private int reads() {
        return hns.journal().count(HnsCall.OPEN, HnsObjectKind.LOAD_BALANCER);
    }

    private void advance(Duration d) {
        nanos.addAndGet(d.toNanos());
    }

    @Test
    void theFirstRefreshReadsEveryDocumentAndLaterOnesOnlyAShareProportionalToElapsedTime() {
        assertThat(cache.refresh(hns, id -> true)).hasSize(10);
        assertThat(cache.lastFetches()).isEqualTo(10);

        advance(Duration.ofSeconds(3));
        cache.refresh(hns, id -> true);
        assertThat(cache.lastFetches()).isEqualTo(1);

        advance(Duration.ofSeconds(15));
        cache.refresh(hns, id -> true);
        assertThat(cache.lastFetches()).isEqualTo(5);
    }

    @Test
    void everyOwnedDocumentIsReReadWithinOnePeriodOfElapsedTime() {
        cache.refresh(hns, id -> true);
        hns.journal().reset();
        for (int i = 0; i < 10; i++) {
            advance(Duration.ofSeconds(3));
            cache.refresh(hns, id -> true);
        }
        assertThat(reads()).isGreaterThanOrEqualTo(10);
    }

    @Test
    void unownedDocumentsAreReadOnceAndThenOnlyTheirIdsAreTracked() {
        cache.refresh(hns, id -> false);
        hns.journal().reset();
        advance(PERIOD);
        cache.refresh(hns, id -> false);
        assertThat(reads()).isZero();
        assertThat(hns.journal().count(HnsCall.ENUMERATE, HnsObjectKind.LOAD_BALANCER)).isEqualTo(1);
    }

    @Test
    void aVanishedLoadBalancerIsDroppedAndANewOneRead() {
        List<HostComputeLoadBalancer> before = cache.refresh(hns, id -> true);
        hns.deleteLoadBalancer(before.get(0).id());
        advance(Duration.ofMillis(1));
        assertThat(cache.refresh(hns, id -> true)).hasSize(9)
                .noneMatch(lb -> lb.id().equals(before.get(0).id()));
    }
}
