package io.winproxy.agent.sync;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.agent.dataplane.HnsCapabilityFile;
import io.winproxy.agent.dataplane.HnsDataplane;
import io.winproxy.agent.dataplane.IdChoice;
import io.winproxy.agent.dataplane.OwnershipJournal;
import io.winproxy.agent.health.ProxierHealth;
import io.winproxy.agent.health.ProxyHealthServer;
import io.winproxy.agent.kube.EventRecorder;
import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.policy.desired.PolicyCalculator;
import io.winproxy.policy.desired.PolicyConfig;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.Protocol;
import io.winproxy.policy.model.ServiceInfo;
import io.winproxy.policy.trace.Packet;
import io.winproxy.policy.trace.PacketTracer;
import io.winproxy.policy.trace.TraceResult;
import io.winproxy.policy.trace.Verdict;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Service with 70 ready endpoints through the real layers (sync loop, policy, dataplane, HNS emulator): Windows
 * Server 2019 refuses a load balancer with more than 64 destinations, so winproxy learns the limit from the failed
 * create, programs the Service with 64 backends (this node's first) and warns once; Windows Server 2022 takes all 70.
 * Neither teaches anything about IDs. Other Services keep working throughout.
 */
class BackendLimitSyncTest {
    @TempDir
    Path stateDir;

    private final ManualScheduler scheduler = new ManualScheduler();
    private final List<String> warnings = new CopyOnWriteArrayList<>();
    private HnsEmulator hns;
    private HnsDataplane dataplane;
    private VfpPolicyEngine engine;
    private ProxySyncLoop loop;

    private void start(HnsVersion version) {
        hns = HnsEmulator.builder().version(version).build();
        EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.L2BRIDGE, "cbr0", "win-a");
        host.syncNetwork(List.of(new EmulatedHost.Node("win-a", "10.244.1.0/24", "192.168.1.11")));
        host.syncLocalEndpoints(java.util.Set.of("10.244.1.200"));
        EventRecorder recorder = (kind, ns, name, type, reason, message) -> {
            if ("Warning".equals(type)) {
                warnings.add(reason + " " + ns + "/" + name + ": " + message);
            }
        };
        FamilyRecordingMetrics metrics = new FamilyRecordingMetrics();
        ProxyHealthServer health = new ProxyHealthServer(null, new ProxierHealth(Duration.ofSeconds(60),
                Clock.systemUTC()), false, "win-a", metrics, recorder, Duration.ofSeconds(1));
        engine = new VfpPolicyEngine(new PolicyCalculator(PolicyConfig.defaults().withHnsSupportsDsr(false)
                .withHnsSupportsIpv6DualStack(false), List.of()),
                NodeNetworkFactory.withoutHostMac("win-a", "", "cbr0", ""), metrics, Instant.EPOCH, false);
        dataplane = new HnsDataplane(hns, "cbr0", OwnershipJournal.open(stateDir), Duration.ofSeconds(30),
                () -> scheduler.nowMillis() * 1_000_000L);
        loop = new ProxySyncLoop(engine, dataplane, health, null, metrics, recorder, Clock.systemUTC(),
                List.of(IpFamily.IPV4), "win-a", ProxySyncLoop.Timing.of(Duration.ofSeconds(1),
                Duration.ofSeconds(30)), scheduler, r -> { });
        loop.start();
        L2BridgeLoop.syncWinA(loop, scheduler);
    }

    private static ServiceInfo service(String name, String clusterIp) {
        return new ServiceInfo("default", name, "ClusterIP", List.of(clusterIp), List.of("IPv4"),
                List.of(new ServiceInfo.ServicePortSpec("http", "TCP", 80, "8080", 0)), List.of(), List.of(), "None",
                0, null, null, 0, null, null);
    }

    /** {@code count} ready endpoints of win-b, plus this node's pod 10.244.1.200 (which sorts last by IP). */
    private static EndpointSliceInfo slice(String service, int count) {
        List<EndpointSliceInfo.SliceEndpoint> endpoints = new ArrayList<>();
        for (int i = 1; i <= count - 1; i++) {
            endpoints.add(new EndpointSliceInfo.SliceEndpoint(List.of("10.244.2." + i), true, null, null, "win-b",
                    null, null, null));
        }
        endpoints.add(new EndpointSliceInfo.SliceEndpoint(List.of("10.244.1.200"), true, null, null, "win-a", null,
                null, null));
        return new EndpointSliceInfo("default", service + "-1", service, "IPv4",
                List.of(new EndpointSliceInfo.SlicePort("http", "TCP", 8080)), endpoints, null);
    }

    private void deploy() {
        loop.onService(null, service("big", "10.96.0.70"));
        loop.onEndpointSlice(null, slice("big", 70));
        loop.onService(null, service("small", "10.96.0.3"));
        loop.onEndpointSlice(null, slice("small", 3));
        scheduler.advanceMillis(1000);
        scheduler.advanceMillis(1000);
        scheduler.advanceMillis(1000);
    }

    private HostComputeLoadBalancer loadBalancerOf(String vip) {
        return hns.listLoadBalancers().stream().filter(lb -> lb.frontendVips().contains(vip)).findFirst()
                .orElseThrow();
    }

    /** Traces a packet from this node's pod through what HNS holds now (read afresh, no journal). */
    private TraceResult trace(String vip) {
        HnsDataplane reader = new HnsDataplane(hns, "cbr0", OwnershipJournal.inMemory(), Duration.ofSeconds(30),
                System::nanoTime);
        return PacketTracer.trace(reader.observe(), engine.lastNodeNetwork(),
                new Packet("10.244.1.200", vip, 80, Protocol.TCP));
    }

    @Test
    void onWindowsServer2019AServiceOf70ReadyEndpointsIsProgrammedWith64AndOneWarning() {
        start(HnsVersion.WINDOWS_SERVER_2019);
        deploy();

        HostComputeLoadBalancer big = loadBalancerOf("10.96.0.70");
        assertThat(big.hostComputeEndpoints()).hasSize(64);
        TraceResult traced = trace("10.96.0.70");
        assertThat(traced.verdict()).isEqualTo(Verdict.FORWARDED);
        assertThat(traced.backends()).hasSize(64).contains("10.244.1.200:8080")
                .contains("10.244.2.1:8080").doesNotContain("10.244.2.69:8080");
        assertThat(trace("10.96.0.3").backends()).as("the other Service works").hasSize(3);

        assertThat(warnings).filteredOn(w -> w.startsWith("BackendsCut")).singleElement().asString()
                .contains("default/big").contains("has 70 backends, more than the 64")
                .contains("64 are programmed (this node's first, then by IP), 6 are not");
        assertThat(HnsCapabilityFile.read(stateDir).orElseThrow().maxBackendsPerLoadBalancer()).isEqualTo(64);
        assertThat(stateDir.resolve(IdChoice.FILE_NAME)).as("nothing learnt about IDs").doesNotExist();
        assertThat(dataplane.idChoice()).startsWith("winproxy chooses HNS IDs");

        // Later syncs write nothing and warn no more.
        hns.journal().reset();
        scheduler.advanceMillis(31_000);
        assertThat(hns.journal().writes()).isZero();
        assertThat(warnings).filteredOn(w -> w.startsWith("BackendsCut")).hasSize(1);
    }

    @Test
    void onWindowsServer2022TheSameServiceGetsAll70() throws Exception {
        start(HnsVersion.WINDOWS_SERVER_2022);
        deploy();

        assertThat(loadBalancerOf("10.96.0.70").hostComputeEndpoints()).hasSize(70);
        assertThat(trace("10.96.0.70").backends()).hasSize(70);
        assertThat(warnings).noneMatch(w -> w.startsWith("BackendsCut"));
        assertThat(stateDir.resolve(HnsCapabilityFile.FILE_NAME)).doesNotExist();
        assertThat(stateDir.resolve(IdChoice.FILE_NAME)).doesNotExist();
        try (var files = Files.list(stateDir)) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith("hns-"));
        }
    }

    @Test
    void aLimitLearntEarlierIsUsedFromTheFirstSyncWithoutAFailedCreate() throws Exception {
        HnsCapabilityFile.write(stateDir, HnsCapabilityFile.NONE.withMaxBackends(64, "winproxy check --probe-hns",
                Instant.EPOCH));
        start(HnsVersion.WINDOWS_SERVER_2019);
        deploy();

        assertThat(loadBalancerOf("10.96.0.70").hostComputeEndpoints()).hasSize(64);
        assertThat(hns.journal().failures()).as("no create refused").isZero();
        assertThat(dataplane.backendLimit().source()).contains("winproxy check --probe-hns");
    }
}
