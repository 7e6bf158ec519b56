package io.winproxy.agent.sync;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.agent.metrics.AgentMetrics;
import io.winproxy.agent.status.ServicePortStatus;
import io.winproxy.agent.status.StatusReport;
import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsErrors;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsCall;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.emulator.HnsObjectKind;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import io.winproxy.policy.desired.PolicyConfig;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.ServiceInfo;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Per-Service truth after real syncs (the sync loop on a manual clock, the real policy and dataplane over the HNS
 * emulator): a failing create shows as failed with its decoded HRESULT, moves kubernetes#137766's counters with the
 * right labels and gives one FailedToProgram Event; its recovery gives one Programmed Event; a load balancer deleted
 * behind winproxy's back is re-created, counted as a repair and named in a Repaired Event.
 */
class ProgrammingStatusTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private final HnsEmulator hns = HnsEmulator.inMemory();
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final RecordingMetrics metrics = new RecordingMetrics();
    private ProxySyncLoop loop;

    /** The failure, repair and state metrics the tracker reports. */
    static final class RecordingMetrics implements AgentMetrics {
        final Map<String, Integer> failures = new ConcurrentHashMap<>();
        final Map<String, Integer> repairs = new ConcurrentHashMap<>();
        volatile int[] ports = new int[4];

        @Override
        public void loadBalancerFailure(String operation, IpFamily family, String lbType, String errorLabel) {
            failures.merge(operation + "," + family + "," + lbType + "," + errorLabel, 1, Integer::sum);
        }

        @Override
        public void hnsRepair(String object, String cause) {
            repairs.merge(object + "," + cause, 1, Integer::sum);
        }

        @Override
        public void servicePorts(int programmed, int pending, int failed, int notProgrammed) {
            ports = new int[] {programmed, pending, failed, notProgrammed};
        }
    }

    @BeforeEach
    void setUp() {
        EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.L2BRIDGE, "cbr0", "win-a");
        host.syncNetwork(List.of(new EmulatedHost.Node("win-a", "10.244.1.0/24", "192.168.1.11")));
        host.syncLocalEndpoints(Set.of("10.244.1.5"));
        loop = L2BridgeLoop.startDefault(hns, metrics,
                (kind, ns, name, type, reason, message) -> events.add(type + " " + reason + " " + kind + " " + ns
                        + "/" + name + ": " + message), scheduler);
        loop.onNodeSynced();
    }

    private static ServiceInfo service(String name, String ip) {
        return new ServiceInfo("default", name, "ClusterIP", List.of(ip), List.of("IPv4"),
                List.of(new ServiceInfo.ServicePortSpec("http", "TCP", 80, "8080", 0)), List.of(), List.of(),
                "None", 0, null, null, 0, null, null);
    }

    private static EndpointSliceInfo slice(String service) {
        return new EndpointSliceInfo("default", service + "-1", service, "IPv4",
                List.of(new EndpointSliceInfo.SlicePort("http", "TCP", 8080)),
                List.of(new EndpointSliceInfo.SliceEndpoint(List.of("10.244.1.5"), true, null, null, "win-a", null,
                        null, null)), null);
    }

    private void listed() {
        loop.onService(null, service("web", "10.96.0.80"));
        loop.onEndpointSlice(null, slice("web"));
        loop.onService(null, service("empty", "10.96.0.81"));
        loop.onServicesSynced();
        loop.onEndpointSlicesSynced();
    }

    private ServicePortStatus status(String service) {
        StatusReport.Document doc = StatusReport.build(loop.view(), service, 10, null);
        assertThat(doc.source()).isEqualTo("agent");
        assertThat(doc.servicePorts()).hasSize(1);
        return doc.servicePorts().get(0);
    }

    @Test
    void aFailingCreateIsFailedWithItsDecodedHresultUntilItWorksThenProgrammedAgain() {
        hns.faults().failNext(HnsCall.CREATE, HnsObjectKind.LOAD_BALANCER, 3, HResults.HCN_E_PORT_ALREADY_EXISTS);
        listed();
        scheduler.advanceMillis(1000);

        ServicePortStatus failed = status("default/web");
        assertThat(failed.state()).isEqualTo("failed");
        assertThat(failed.lastError().hresult()).isEqualTo("0x803B0013");
        assertThat(failed.lastError().name()).isEqualTo("HCN_E_PORT_ALREADY_EXISTS");
        assertThat(failed.lastError().cause()).isEqualTo(HnsErrors.diagnose(0x803B0013).cause());
        assertThat(failed.lastError().op()).isEqualTo("create-load-balancer");
        assertThat(failed.nextTry()).isNotNull();
        assertThat(failed.reason()).startsWith("HCN_E_PORT_ALREADY_EXISTS: ");
        assertThat(metrics.failures).containsEntry("create,IPV4,clusterip,port_already_exists", 1);
        assertThat(metrics.ports).containsExactly(0, 0, 1, 1);
        assertThat(events).filteredOn(e -> e.contains("FailedToProgram")).singleElement().asString()
                .startsWith("Warning FailedToProgram Service default/web: HNS create-load-balancer of ClusterIP load"
                        + " balancer 10.96.0.80:80/TCP for port default/web:http failed: 0x803B0013"
                        + " HCN_E_PORT_ALREADY_EXISTS: another load balancer");

        scheduler.advanceMillis(120_000);
        assertThat(hns.listLoadBalancers()).hasSize(1);
        assertThat(metrics.failures).containsOnly(Map.entry("create,IPV4,clusterip,port_already_exists", 3));
        assertThat(events).filteredOn(e -> e.contains("FailedToProgram")).hasSize(1);
        assertThat(events).filteredOn(e -> e.contains(" Programmed ")).singleElement().asString()
                .startsWith("Normal Programmed Service default/web: Port default/web:http is programmed again after 3"
                        + " failed attempt(s)");
        ServicePortStatus programmed = status("default/web");
        assertThat(programmed.state()).isEqualTo("programmed");
        assertThat(programmed.loadBalancers()).singleElement().satisfies(lb -> {
            assertThat(lb.id()).isEqualToIgnoringCase(hns.listLoadBalancers().get(0).id());
            assertThat(lb.kind()).isEqualTo("ClusterIP");
            assertThat(lb.current()).isTrue();
        });
        assertThat(programmed.lastError().name()).as("kept after recovery").isEqualTo("HCN_E_PORT_ALREADY_EXISTS");
        assertThat(programmed.latencyMillis()).isNotNull().isGreaterThanOrEqualTo(0L);
        assertThat(programmed.backends()).isEqualTo(new ServicePortStatus.Backends(1, 1, 1, 1));
        assertThat(metrics.ports).containsExactly(1, 0, 0, 1);
    }

    @Test
    void aLoadBalancerDeletedBehindWinproxysBackIsRecreatedCountedAndNamedInARepairedEvent() {
        listed();
        scheduler.advanceMillis(1000);
        HostComputeLoadBalancer original = hns.listLoadBalancers().get(0);
        hns.deleteLoadBalancer(original.id());

        scheduler.advanceMillis(31_000);
        assertThat(hns.listLoadBalancers()).hasSize(1);
        assertThat(metrics.repairs).containsOnly(Map.entry("load_balancer,deleted_out_of_band", 1));
        assertThat(events).filteredOn(e -> e.contains("Repaired")).singleElement().asString()
                .isEqualTo("Normal Repaired Service default/web: Re-created ClusterIP load balancer 10.96.0.80:80/TCP"
                        + " for port default/web:http: it was deleted behind winproxy's back");
        assertThat(status("default/web").state()).isEqualTo("programmed");

        scheduler.advanceMillis(90_000);
        assertThat(metrics.repairs).as("counted once").containsOnly(Map.entry("load_balancer,deleted_out_of_band", 1));
    }

    @Test
    void aLoadBalancerChangedBehindWinproxysBackIsCorrectedAndCountedWhenTheDriftCheckFindsIt() {
        listed();
        scheduler.advanceMillis(1000);
        HostComputeLoadBalancer lb = hns.listLoadBalancers().get(0);
        LoadBalancerPortMapping pm = lb.portMappings().get(0);
        hns.modifyLoadBalancer(lb.id(), new HostComputeLoadBalancer(null, lb.hostComputeEndpoints(), lb.sourceVip(),
                lb.frontendVips(), List.of(new LoadBalancerPortMapping(pm.protocol(), 9999, pm.externalPort(),
                pm.distributionType(), pm.flags())), lb.schemaVersion(), lb.flags()));

        // Every owned object is re-read once per drift period (10 minutes by default).
        scheduler.advanceMillis(11 * 60_000);
        assertThat(hns.listLoadBalancers()).singleElement()
                .satisfies(now -> assertThat(now.portMappings().get(0).internalPort()).isEqualTo(8080));
        assertThat(metrics.repairs).containsOnly(Map.entry("load_balancer,changed_out_of_band", 1));
        assertThat(events).filteredOn(e -> e.contains("Repaired")).singleElement().asString()
                .isEqualTo("Normal Repaired Service default/web: Corrected ClusterIP load balancer 10.96.0.80:80/TCP"
                        + " for port default/web:http: it was changed behind winproxy's back");
    }

    @Test
    void whatAnHnsRestartLostIsRecreatedAndCountedAsAnHnsRestartRepair() {
        listed();
        scheduler.advanceMillis(1000);
        hns.restartHns();
        hns.faults().failNext(HnsCall.ENUMERATE, HnsObjectKind.LOAD_BALANCER, 1, HResults.ERROR_SERVICE_NOT_ACTIVE);

        scheduler.advanceMillis(31_000);
        scheduler.advanceMillis(31_000);
        assertThat(hns.listLoadBalancers()).hasSize(1);
        assertThat(metrics.repairs).containsOnly(Map.entry("load_balancer,hns_restart", 1));
        assertThat(events).filteredOn(e -> e.contains("Repaired")).singleElement().asString()
                .contains("HNS lost it while it restarted");
    }

    @Test
    void statusPagesFollowServicePortOrderAndHoldAtMostTheLimit() {
        listed();
        loop.onService(null, service("api", "10.96.0.82"));
        scheduler.advanceMillis(1000);
        StatusReport.Document first = StatusReport.build(loop.view(), null, 2, null);
        assertThat(first.servicePorts()).extracting(ServicePortStatus::servicePort)
                .containsExactly("default/api:http", "default/empty:http");
        assertThat(first.next()).isEqualTo("default/empty:http");
        StatusReport.Document second = StatusReport.build(loop.view(), null, 2, first.next());
        assertThat(second.servicePorts()).extracting(ServicePortStatus::servicePort)
                .containsExactly("default/web:http");
        assertThat(second.next()).isNull();
        assertThat(StatusReport.Document.parse(second.json())).isEqualTo(second);
    }

    @Test
    void backendsCutByTheBackendLimitAreANoteOfAProgrammedPortAndAWarningEvent() {
        EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.L2BRIDGE, "cbr0", "win-a");
        host.syncLocalEndpoints(Set.of("10.244.1.5", "10.244.1.6"));
        loop.stop();
        loop = L2BridgeLoop.startDefault(hns, PolicyConfig.defaults().withMaxBackendsPerLoadBalancer(1), metrics,
                (kind, ns, name, type, reason, message) -> events.add(type + " " + reason + " " + kind + " " + ns
                        + "/" + name + ": " + message), scheduler);
        loop.onNodeSynced();
        loop.onService(null, service("web", "10.96.0.80"));
        loop.onEndpointSlice(null, new EndpointSliceInfo("default", "web-1", "web", "IPv4",
                List.of(new EndpointSliceInfo.SlicePort("http", "TCP", 8080)), List.of(
                        new EndpointSliceInfo.SliceEndpoint(List.of("10.244.1.5"), true, null, null, "win-a", null,
                                null, null),
                        new EndpointSliceInfo.SliceEndpoint(List.of("10.244.1.6"), true, null, null, "win-a", null,
                                null, null)), null));
        loop.onServicesSynced();
        loop.onEndpointSlicesSynced();
        scheduler.advanceMillis(1000);

        ServicePortStatus web = status("default/web");
        assertThat(web.state()).isEqualTo("programmed");
        assertThat(web.backends()).isEqualTo(new ServicePortStatus.Backends(2, 2, 1, 1));
        assertThat(web.notes()).singleElement().asString().startsWith("backends cut by a backend limit: port http/TCP:");
        assertThat(events).filteredOn(e -> e.startsWith("Warning TooManyBackends Service default/web")).hasSize(1);
    }

    @Test
    void aServiceWithoutEndpointsIsNotProgrammedForWantOfReadyEndpoints() {
        listed();
        scheduler.advanceMillis(1000);
        ServicePortStatus empty = status("default/empty");
        assertThat(empty.state()).isEqualTo("not programmed");
        assertThat(empty.reason()).isEqualTo("no ready endpoints");
        assertThat(empty.frontends()).singleElement()
                .isEqualTo(new ServicePortStatus.Frontend("ClusterIP", "IPv4", "10.96.0.81", 80,
                        true));
        assertThat(empty.loadBalancers()).isEmpty();
    }
}
