package io.winproxy.agent.sync;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.agent.dataplane.HnsDataplane;
import io.winproxy.agent.dataplane.OwnershipJournal;
import io.winproxy.agent.health.ProxierHealth;
import io.winproxy.agent.health.ProxyHealthServer;
import io.winproxy.agent.kube.EventRecorder;
import io.winproxy.agent.metrics.AgentMetrics;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsCall;
import io.winproxy.hns.emulator.FaultSettings;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.policy.desired.PolicyCalculator;
import io.winproxy.policy.desired.PolicyConfig;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.ServiceInfo;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A bounded sync in real time: a Service with 3,000 remote backends (all programmed) on an emulated host
 * where every create takes 5 ms (over 5 s of creates) and the health timeout is 4 s. The apply is split into chunks
 * of about the bound (2 s), each chunk reports progress, /healthz never goes unhealthy, and the host converges.
 */
class BoundedSyncTest {
    private static final int BACKENDS = 3000;
    /** All of them: the policy programs up to 5,000 backends per load balancer. */
    private static final int PROGRAMMED = BACKENDS;
    private static final Duration SYNC_PERIOD = Duration.ofSeconds(2);

    private final ExecutorScheduler scheduler = new ExecutorScheduler("bounded-sync-test");
    private final List<SyncReport> reports = new CopyOnWriteArrayList<>();
    private ProxySyncLoop loop;

    @AfterEach
    void tearDown() {
        if (loop != null) {
            loop.stop();
        }
        scheduler.close();
    }

    private static ServiceInfo web() {
        return new ServiceInfo("default", "web", "ClusterIP", List.of("10.96.0.80"), List.of("IPv4"),
                List.of(new ServiceInfo.ServicePortSpec("http", "TCP", 80, "8080", 0)), List.of(), List.of(),
                "None", 0, null, null, 0, null, null);
    }

    private static EndpointSliceInfo slice(int index) {
        List<EndpointSliceInfo.SliceEndpoint> endpoints = new ArrayList<>();
        for (int i = index * 1000; i < (index + 1) * 1000; i++) {
            String ip = "10.244." + (16 + i / 250) + "." + (1 + i % 250);
            endpoints.add(new EndpointSliceInfo.SliceEndpoint(List.of(ip), true, null, null, "win-b", null, null,
                    null));
        }
        return new EndpointSliceInfo("default", "web-" + index, "web", "IPv4",
                List.of(new EndpointSliceInfo.SlicePort("http", "TCP", 8080)), endpoints, null);
    }

    @Test
    void aServiceWithThousandsOfBackendsOnASlowHostConvergesInChunksWhileHealthStaysGood() throws Exception {
        HnsEmulator hns = HnsEmulator.inMemory();
        // An HNS that takes every backend (the default profiles stop at 1,024; BackendLimitSyncTest covers that).
        hns.faults().set(FaultSettings.NONE.withMaxDestinations(10_000));
        EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.L2BRIDGE, "cbr0", "win-a");
        host.syncNetwork(List.of(new EmulatedHost.Node("win-a", "10.244.1.0/24", "192.168.1.11"),
                new EmulatedHost.Node("win-b", "10.244.16.0/20", "192.168.1.12")));
        host.syncLocalEndpoints(Set.of("10.244.1.5"));
        hns.faults().latency(HnsCall.CREATE, Duration.ofMillis(5));
        EventRecorder recorder = (kind, ns, name, type, reason, message) -> { };
        ProxierHealth proxierHealth = new ProxierHealth(ProxierHealth.timeoutForSyncPeriod(SYNC_PERIOD),
                Clock.systemUTC());
        ProxyHealthServer health = new ProxyHealthServer(null, proxierHealth, false, "win-a", AgentMetrics.NOOP,
                recorder, Duration.ofSeconds(1));
        VfpPolicyEngine engine = new VfpPolicyEngine(new PolicyCalculator(PolicyConfig.defaults(), List.of()),
                NodeNetworkFactory.withoutHostMac("win-a", "", "cbr0", "192.168.1.11"), AgentMetrics.NOOP,
                Instant.EPOCH);
        HnsDataplane dataplane = new HnsDataplane(hns, "cbr0", OwnershipJournal.inMemory(), SYNC_PERIOD,
                System::nanoTime);
        loop = new ProxySyncLoop(engine, dataplane, health, null, AgentMetrics.NOOP, recorder, Clock.systemUTC(),
                List.of(IpFamily.IPV4), "win-a", ProxySyncLoop.Timing.of(Duration.ofMillis(100), SYNC_PERIOD),
                scheduler, reports::add);
        assertThat(ProxySyncLoop.Timing.of(Duration.ofMillis(100), SYNC_PERIOD).applyBound())
                .isEqualTo(Duration.ofSeconds(2));
        loop.start();
        loop.onNodeSynced();
        loop.onService(null, web());
        for (int i = 0; i < BACKENDS / 1000; i++) {
            loop.onEndpointSlice(null, slice(i));
        }
        loop.onServicesSynced();
        loop.onEndpointSlicesSynced();

        AtomicInteger unhealthy = new AtomicInteger();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        boolean converged = false;
        while (System.nanoTime() < deadline && !converged) {
            if (!proxierHealth.isHealthy()) {
                unhealthy.incrementAndGet();
            }
            Thread.sleep(20);
            converged = !reports.isEmpty() && reports.get(reports.size() - 1).result().complete();
        }

        assertThat(converged).as("converged within 60 s").isTrue();
        assertThat(unhealthy.get()).as("health checks that saw 503").isZero();
        List<HostComputeLoadBalancer> lbs = hns.listLoadBalancers();
        assertThat(lbs).singleElement().satisfies(lb -> assertThat(lb.hostComputeEndpoints()).hasSize(PROGRAMMED));
        long chunks = reports.stream().filter(r -> r.result().partial()).count();
        assertThat(chunks).as("partial syncs").isGreaterThanOrEqualTo(2);
        assertThat(reports).allSatisfy(r -> assertThat(r.timings().apply())
                .isLessThan(Duration.ofSeconds(3)));
    }
}
