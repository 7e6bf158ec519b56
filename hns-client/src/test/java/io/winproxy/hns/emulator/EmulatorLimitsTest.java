package io.winproxy.hns.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The capacity limits of the emulated host: destinations per load balancer and the dynamic port pool. */
class EmulatorLimitsTest {
    @TempDir
    Path dir;

    private static EmulatorFixture on(HnsVersion version) {
        return new EmulatorFixture(HnsEmulator.builder().seed(7).version(version).build());
    }

    /** {@code n} local endpoints of node-a (10.244.1.10 upwards). */
    private static List<String> endpoints(EmulatorFixture f, int n) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add(f.host.ensureLocalEndpoint("10.244.1." + (10 + i)).id());
        }
        return ids;
    }

    private static HostComputeLoadBalancer lb(int port, List<String> endpoints, int flags) {
        return HostComputeLoadBalancer.of(endpoints, "", "10.96.0.1", new LoadBalancerPortMapping(
                LoadBalancerPortMapping.PROTOCOL_TCP, 8080, port, 0, LoadBalancerPortMapping.FLAG_ILB), flags);
    }

    @Test
    void windowsServer2019RefusesALoadBalancerWithMoreThan64DestinationsWithInvalidArg() {
        EmulatorFixture f = on(HnsVersion.WINDOWS_SERVER_2019);
        List<String> eps = endpoints(f, 65);

        assertThat(f.hns.limits().maxDestinationsPerLoadBalancer()).isEqualTo(64);
        assertThatThrownBy(() -> f.hns.createLoadBalancer(lb(80, eps, 0)))
                .isInstanceOfSatisfying(HnsException.class, e -> {
                    assertThat(e.hresult()).isEqualTo(HResults.E_INVALIDARG);
                    assertThat(e.getMessage()).contains("invalid number of destinations");
                });
        assertThat(f.hns.listLoadBalancerIds()).isEmpty();
        // Also with HNS choosing the ID (the zero-GUID retry fails the same way), and 64 is accepted.
        assertThatThrownBy(() -> f.hns.createLoadBalancer(lb(80, eps, 0).withId(null)))
                .isInstanceOfSatisfying(HnsException.class, e -> assertThat(e.hresult())
                        .isEqualTo(HResults.E_INVALIDARG));
        f.hns.createLoadBalancer(lb(80, eps.subList(0, 64), 0));
        assertThat(f.hns.listLoadBalancerIds()).hasSize(1);
    }

    @Test
    void laterReleasesAccept1024DestinationsAndRefuseMore() {
        EmulatorFixture f = on(HnsVersion.WINDOWS_SERVER_2022);
        List<String> eps = endpoints(f, 200);
        f.hns.createLoadBalancer(lb(80, eps, 0));
        assertThat(f.hns.limits().maxDestinationsPerLoadBalancer()).isEqualTo(1024);
        assertThat(on(HnsVersion.WINDOWS_SERVER_2025).hns.limits().maxDestinationsPerLoadBalancer())
                .isEqualTo(1024);

        f.hns.faults().set(FaultSettings.NONE.withMaxDestinations(100));
        assertThatThrownBy(() -> f.hns.createLoadBalancer(lb(81, eps, 0)))
                .isInstanceOfSatisfying(HnsException.class, e -> assertThat(e.hresult())
                        .isEqualTo(HResults.E_INVALIDARG));
    }

    @Test
    void aModifyBeyondTheLimitFailsAndLeavesTheLoadBalancerAsItWas() {
        EmulatorFixture f = on(HnsVersion.WINDOWS_SERVER_2025);
        f.hns.faults().set(FaultSettings.NONE.withMaxDestinations(3));
        List<String> eps = endpoints(f, 4);
        HostComputeLoadBalancer created = f.hns.createLoadBalancer(lb(80, eps.subList(0, 3), 0));

        assertThatThrownBy(() -> f.hns.modifyLoadBalancer(created.id(), lb(80, eps, 0)))
                .isInstanceOfSatisfying(HnsException.class, e -> assertThat(e.hresult())
                        .isEqualTo(HResults.E_INVALIDARG));
        assertThat(f.hns.getLoadBalancer(created.id()).orElseThrow().hostComputeEndpoints()).hasSize(3);
    }

    @Test
    void nonDsrLoadBalancersRunTheDynamicPortPoolOutWithPortAlreadyExists() {
        EmulatorFixture f = on(HnsVersion.WINDOWS_SERVER_2025);
        assertThat(f.hns.limits().portPoolLimited()).isFalse();
        f.hns.faults().set(FaultSettings.NONE.withPortPool(3 * HnsLimits.PORTS_PER_LOAD_BALANCER));
        List<String> ep = List.of(f.pod1.id());
        for (int port = 1; port <= 3; port++) {
            f.hns.createLoadBalancer(lb(port, ep, 0));
        }
        HnsLimits full = f.hns.limits();
        assertThat(full.dynamicPortsInUse()).isEqualTo(192);
        assertThat(full.loadBalancerHeadroom()).isZero();

        assertThatThrownBy(() -> f.hns.createLoadBalancer(lb(4, ep, 0)))
                .isInstanceOfSatisfying(HnsException.class, e -> assertThat(e.hresult())
                        .isEqualTo(HResults.HCN_E_PORT_ALREADY_EXISTS));
        // A DSR load balancer reserves no ports; a delete gives a range back.
        f.hns.createLoadBalancer(lb(5, ep, HostComputeLoadBalancer.FLAG_DSR));
        f.hns.deleteLoadBalancer(f.hns.listLoadBalancerIds().get(0));
        assertThat(f.hns.limits().loadBalancerHeadroom()).isEqualTo(1);
        f.hns.createLoadBalancer(lb(4, ep, 0));
    }

    @Test
    void theLimitsAreSavedWithTheStateFileForOtherProcesses() {
        Path file = dir.resolve("hns.json");
        HnsEmulator first = HnsEmulator.builder().stateFile(file).build();
        first.faults().set(FaultSettings.NONE.withMaxDestinations(10).withPortPool(640));

        HnsLimits seen = HnsEmulator.openExisting(file).limits();
        assertThat(seen.maxDestinationsPerLoadBalancer()).isEqualTo(10);
        assertThat(seen.dynamicPorts()).isEqualTo(640);
        assertThat(FaultSettings.NONE.withPortPool(640).describe(java.time.Instant.EPOCH))
                .containsExactly("port pool: 640 dynamic ports (64 per non-DSR load balancer)");
    }
}
