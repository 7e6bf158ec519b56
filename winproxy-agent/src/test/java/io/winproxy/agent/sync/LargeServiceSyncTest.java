package io.winproxy.agent.sync;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.agent.health.ProxierHealth;
import io.winproxy.agent.health.ProxyHealthServer;
import io.winproxy.agent.kube.EventRecorder;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.FaultSettings;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.policy.desired.PolicyCalculator;
import io.winproxy.policy.desired.PolicyConfig;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.ServiceInfo;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A Service with 5,000 endpoints through the real layers (sync loop, policy with the agent's default limit, dataplane,
 * HNS emulator on an l2bridge network whose HNS takes that many): every backend is programmed; the 5,001st is cut with one warning event that
 * names it, and the load balancer keeps 5,000 backends.
 */
class LargeServiceSyncTest {
    /** The number promised in docs/policy.md (not the constant: the test must fail if the default drops). */
    private static final int LIMIT = 5000;

    private final ManualScheduler scheduler = new ManualScheduler();
    private final HnsEmulator hns = HnsEmulator.inMemory();
    private final List<String> warnings = new CopyOnWriteArrayList<>();
    private ProxySyncLoop loop;

    private void start() {
        // A host that takes more than 5,000 destinations per load balancer (configured: the emulator's profiles stop
        // at the 1,024 public sources document; BackendLimitSyncTest shows what happens at a lower limit).
        hns.faults().set(FaultSettings.NONE.withMaxDestinations(10_000));
        EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.L2BRIDGE, "cbr0", "win-a");
        host.syncNetwork(List.of(new EmulatedHost.Node("win-a", "10.244.1.0/24", "192.168.1.11")));
        EventRecorder recorder = (kind, ns, name, type, reason, message) -> {
            if ("Warning".equals(type)) {
                warnings.add(reason + ": " + message);
            }
        };
        ProxyHealthServer health = new ProxyHealthServer(null, new ProxierHealth(Duration.ofSeconds(60),
                Clock.systemUTC()), false, "win-a", new FamilyRecordingMetrics(), recorder, Duration.ofSeconds(1));
        FamilyRecordingMetrics metrics = new FamilyRecordingMetrics();
        VfpPolicyEngine engine = new VfpPolicyEngine(new PolicyCalculator(PolicyConfig.defaults(), List.of()),
                NodeNetworkFactory.withoutHostMac("win-a", "", "cbr0", ""), metrics, Instant.EPOCH, false);
        loop = L2BridgeLoop.start(engine, hns, health, metrics, recorder, scheduler, r -> { });
        L2BridgeLoop.syncWinA(loop, scheduler);
    }

    /** {@code count} ready endpoints on another node, in slices of 1,000 as the EndpointSlice controller's limit. */
    private static List<EndpointSliceInfo> slices(int count) {
        List<EndpointSliceInfo> out = new ArrayList<>();
        for (int first = 0; first < count; first += 1000) {
            List<EndpointSliceInfo.SliceEndpoint> endpoints = new ArrayList<>();
            for (int i = first; i < Math.min(count, first + 1000); i++) {
                String ip = "10.245." + (i / 250) + "." + (i % 250 + 1);
                endpoints.add(new EndpointSliceInfo.SliceEndpoint(List.of(ip), true, null, null, "win-b", null,
                        null, null));
            }
            out.add(new EndpointSliceInfo("default", "big-" + (first / 1000), "big", "IPv4",
                    List.of(new EndpointSliceInfo.SlicePort("http", "TCP", 8080)), endpoints, null));
        }
        return out;
    }

    private HostComputeLoadBalancer theLoadBalancer() {
        List<HostComputeLoadBalancer> lbs = hns.listLoadBalancers();
        assertThat(lbs).hasSize(1);
        return lbs.get(0);
    }

    @Test
    void aServiceOf5000EndpointsProgramsAllOfThemAndThe5001stIsCutWithAWarningNamingIt() {
        start();
        loop.onService(null, new ServiceInfo("default", "big", "ClusterIP", List.of("10.96.0.50"), List.of("IPv4"),
                List.of(new ServiceInfo.ServicePortSpec("http", "TCP", 80, "8080", 0)), List.of(), List.of(), "None",
                0, null, null, 0, null, null));
        slices(LIMIT).forEach(s -> loop.onEndpointSlice(null, s));
        scheduler.advanceMillis(1000);

        assertThat(theLoadBalancer().hostComputeEndpoints()).hasSize(LIMIT).doesNotHaveDuplicates();
        assertThat(hns.listEndpoints(hns.getNetworkByName("cbr0").orElseThrow().id())).hasSize(LIMIT);
        assertThat(warnings).noneMatch(w -> w.startsWith("BackendsCut"));

        // One more endpoint, last by IP text: it is the one cut, and the warning names it.
        EndpointSliceInfo last = slices(LIMIT).get(LIMIT / 1000 - 1);
        List<EndpointSliceInfo.SliceEndpoint> more = new ArrayList<>(last.endpoints());
        more.add(new EndpointSliceInfo.SliceEndpoint(List.of("10.245.99.1"), true, null, null, "win-b", null, null,
                null));
        loop.onEndpointSlice(last, new EndpointSliceInfo(last.namespace(), last.name(), last.serviceName(),
                last.addressType(), last.ports(), more, null));
        scheduler.advanceMillis(1000);

        assertThat(theLoadBalancer().hostComputeEndpoints()).hasSize(LIMIT);
        assertThat(warnings).filteredOn(w -> w.startsWith("BackendsCut")).singleElement().asString()
                .contains("has 5001 backends").endsWith("1 are not: 10.245.99.1");
        assertThat(Set.copyOf(hns.listEndpoints(hns.getNetworkByName("cbr0").orElseThrow().id()).stream()
                .flatMap(e -> e.ipAddresses().stream()).toList())).doesNotContain("10.245.99.1");
    }
}
