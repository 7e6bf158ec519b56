package io.winproxy.hns.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsException;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Scripted and random faults, latency and HNS restarts. */
class FaultInjectionTest {
    private final EmulatorFixture f = EmulatorFixture.create();

    @Test
    void theNextNCallsOfAKindFailWithTheGivenHresultThenCallsSucceedAgain() {
        f.hns.faults().failNext(HnsCall.CREATE, HnsObjectKind.LOAD_BALANCER, 2, HResults.HCN_E_MANAGER_STOPPED);

        for (int i = 0; i < 2; i++) {
            assertThatThrownBy(() -> f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0,
                    f.pod1.id()))).isInstanceOfSatisfying(HnsException.class,
                            e -> assertThat(e.hresult()).isEqualTo(HResults.HCN_E_MANAGER_STOPPED));
        }
        assertThat(f.hns.listLoadBalancerIds()).isEmpty();
        f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0, f.pod1.id()));
        assertThat(f.hns.listLoadBalancerIds()).hasSize(1);
        assertThat(f.hns.journal().failures()).isEqualTo(2);
    }

    @Test
    void aScriptedFaultOnlyHitsTheNamedObjectKind() {
        f.hns.faults().failNext(HnsCall.DELETE, HnsObjectKind.ENDPOINT, 1, HResults.E_FAIL);
        var lb = f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0, f.pod1.id()));

        f.hns.deleteLoadBalancer(lb.id());

        assertThatThrownBy(() -> f.hns.deleteEndpoint(f.remote.id())).isInstanceOf(HnsException.class);
        f.hns.deleteEndpoint(f.remote.id());
    }

    @Test
    void anObjectThatVanishesBetweenEnumerateAndOpenIsSkippedByAList() {
        f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0, f.pod1.id()));
        f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.2", 80, 0, f.pod1.id()));
        f.hns.faults().failNext(HnsCall.OPEN, HnsObjectKind.LOAD_BALANCER, 1, HResults.ERROR_NOT_FOUND);

        assertThat(f.hns.listLoadBalancers()).hasSize(1);
    }

    @Test
    void aSeededFractionOfCallsFailsReproducibly() {
        int first = countRandomFailures(7);
        int second = countRandomFailures(7);

        assertThat(first).isEqualTo(second).isBetween(15, 45);
    }

    @Test
    void latencyIsAddedToEveryNativeCall() {
        f.hns.setLatency(Duration.ofMillis(20));
        long start = System.nanoTime();

        f.hns.listLoadBalancerIds();
        f.hns.listLoadBalancerIds();

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(40));
    }

    @Test
    void restartingHnsDropsLoadBalancersAndRemoteEndpointsButKeepsNetworksAndLocalEndpoints() {
        f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0, f.pod1.id(), f.remote.id()));

        f.hns.restartHns();

        assertThat(f.hns.listLoadBalancers()).isEmpty();
        assertThat(f.hns.listEndpoints(f.network.id())).extracting(e -> e.ipAddress().orElseThrow())
                .containsExactlyInAnyOrder("10.244.1.5", "10.244.1.6");
        assertThat(f.hns.getNetworkByName("winproxy-overlay")).isPresent();
    }

    private int countRandomFailures(long seed) {
        EmulatorFixture g = EmulatorFixture.create();
        g.hns.faults().failRandomly(0.3, seed, HResults.E_FAIL, Set.of(HnsCall.ENUMERATE));
        int failures = 0;
        for (int i = 0; i < 100; i++) {
            try {
                g.hns.listLoadBalancerIds();
            } catch (HnsException e) {
                failures++;
            }
        }
        return failures;
    }
}
