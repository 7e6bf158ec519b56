package io.winproxy.policy.tracking;

import static io.winproxy.policy.testing.Slice.slice;
import static io.winproxy.policy.testing.Svc.svc;
import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.policy.model.EndpointInfo;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.Protocol;
import io.winproxy.policy.model.ServicePortName;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Endpoint change tracking and the atomic apply. */
class ProxyStateTest {
    static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    final ServiceChangeTracker services = new ServiceChangeTracker();
    final EndpointsChangeTracker endpoints = new EndpointsChangeTracker("node-a", START);
    final ProxyState state = new ProxyState();
    static final ServicePortName HTTP = new ServicePortName("default", "web", "http", Protocol.TCP);

    static EndpointSliceInfo webSlice(String... readyIps) {
        var s = slice("default", "web-1", "web").port("http", 8080);
        for (String ip : readyIps) {
            s.ready(ip, ip.startsWith("10.244.0.") ? "node-a" : "node-b");
        }
        return s.build();
    }

    @Test
    void sliceEventsReportOnlyTheirOwnChange() {
        EndpointSliceInfo s = webSlice("10.244.0.5");
        assertThat(endpoints.update(null, s)).isTrue();
        assertThat(endpoints.update(null, s)).as("same content again").isFalse();
        assertThat(endpoints.hasPending()).isTrue();
        assertThat(endpoints.pendingCount()).isEqualTo(1);
        state.applyChanges(services, endpoints);
        assertThat(endpoints.pendingCount()).isZero();
    }

    @Test
    void fqdnSlicesAndSlicesWithoutTheServiceLabelAreIgnored() {
        assertThat(endpoints.update(null, slice("default", "f-1", "web").addressType("FQDN").port("http", 80)
                .ready("example.com", "n").build())).isFalse();
        assertThat(endpoints.update(null, slice("default", "orphan", null).port("http", 80).ready("10.1.1.1", "n")
                .build())).isFalse();
        assertThat(endpoints.hasPending()).isFalse();
    }

    @Test
    void anFqdnSliceIsReportedAsAWarningUntilItIsDeleted() {
        EndpointSliceInfo fqdn = slice("default", "f-1", "web").addressType("FQDN").port("http", 80)
                .ready("example.com", "n").build();
        assertThat(endpoints.update(null, fqdn)).as("changes no endpoints").isFalse();
        state.applyChanges(services, endpoints);
        assertThat(state.warnings()).singleElement().satisfies(w -> {
            assertThat(w.kind()).isEqualTo("EndpointSlice");
            assertThat(w.namespace()).isEqualTo("default");
            assertThat(w.name()).isEqualTo("f-1");
            assertThat(w.reason()).isEqualTo("UnsupportedAddressType");
        });
        endpoints.update(fqdn, null);
        state.applyChanges(services, endpoints);
        assertThat(state.warnings()).isEmpty();
    }

    @Test
    void applyingEndpointsGivesLocalReadyCountsAndTriggerTimesAfterTheStart() {
        Instant before = START.minusSeconds(5);
        Instant after = START.plusSeconds(5);
        endpoints.update(null, slice("default", "web-1", "web").port("http", 8080).ready("10.244.0.5", "node-a")
                .ready("10.244.0.6", "node-a").endpoint("10.244.0.7", "node-a", false, false, false)
                .ready("10.244.1.5", "node-b").triggerTime(after).build());
        endpoints.update(null, slice("default", "web-2", "web").port("http", 8080).ready("10.244.1.6", "node-b")
                .triggerTime(before).build());
        ProxyChanges changes = state.applyChanges(services, endpoints);

        assertThat(changes.changedServices()).containsExactly("default/web");
        assertThat(changes.localReadyEndpoints()).containsExactly(Map.entry("default/web", 2));
        assertThat(changes.lastChangeTriggerTimes()).containsExactly(Map.entry("default/web", List.of(after)));
        assertThat(state.endpointsOf(HTTP)).extracting(EndpointInfo::ip).containsExactly("10.244.0.5",
                "10.244.0.6", "10.244.0.7", "10.244.1.5", "10.244.1.6");

        ProxyChanges none = state.applyChanges(services, endpoints);
        assertThat(none.isEmpty()).isTrue();
        assertThat(none.lastChangeTriggerTimes()).isEmpty();
        assertThat(none.localReadyEndpoints()).containsExactly(Map.entry("default/web", 2));
    }

    @Test
    void deletingASliceForgetsItsPendingTriggerTimesAndEmptiesTheService() {
        EndpointSliceInfo s = slice("default", "web-1", "web").port("http", 8080).ready("10.244.0.5", "node-a")
                .triggerTime(START.plusSeconds(1)).build();
        endpoints.update(null, s);
        state.applyChanges(services, endpoints);
        EndpointSliceInfo s2 = slice("default", "web-1", "web").port("http", 8080).ready("10.244.0.6", "node-a")
                .triggerTime(START.plusSeconds(2)).build();
        endpoints.update(s, s2);
        endpoints.update(s2, null);
        ProxyChanges changes = state.applyChanges(services, endpoints);
        assertThat(changes.lastChangeTriggerTimes()).isEmpty();
        assertThat(changes.changedServices()).containsExactly("default/web");
        assertThat(state.endpointsOf(HTTP)).isEmpty();
        assertThat(changes.localReadyEndpoints()).isEmpty();
    }

    @Test
    void aSliceMovedToAnotherServiceLeavesTheOldOne() {
        EndpointSliceInfo s = webSlice("10.244.1.5");
        endpoints.update(null, s);
        state.applyChanges(services, endpoints);
        EndpointSliceInfo moved = slice("default", "web-1", "api").port("http", 8080).ready("10.244.1.5", "node-b")
                .build();
        endpoints.update(s, moved);
        ProxyChanges changes = state.applyChanges(services, endpoints);
        assertThat(changes.changedServices()).containsExactlyInAnyOrder("default/web", "default/api");
        assertThat(state.endpointsOf(HTTP)).isEmpty();
        assertThat(state.endpointsOf(new ServicePortName("default", "api", "http", Protocol.TCP))).hasSize(1);
    }

    @Test
    void anUnchangedServiceKeepsTheSameEndpointListInstance() {
        endpoints.update(null, webSlice("10.244.1.5"));
        endpoints.update(null, slice("default", "api-1", "api").port("http", 8080).ready("10.244.1.9", "n").build());
        state.applyChanges(services, endpoints);
        List<EndpointInfo> before = state.endpointsOf(HTTP);
        endpoints.update(null, slice("default", "api-2", "api").port("http", 8080).ready("10.244.1.8", "n").build());
        state.applyChanges(services, endpoints);
        assertThat(state.endpointsOf(HTTP)).isSameAs(before);
    }

    @Test
    void badSliceAddressesAreWarnedAboutNamingTheSlice() {
        endpoints.update(null, slice("default", "web-1", "web").port("http", 8080).ready("10.244.1.300", "n")
                .ready("10.244.1.5", "n").build());
        ProxyChanges changes = state.applyChanges(services, endpoints);
        assertThat(changes.newWarnings()).singleElement().satisfies(w -> {
            assertThat(w.kind()).isEqualTo("EndpointSlice");
            assertThat(w.name()).isEqualTo("web-1");
            assertThat(w.reason()).isEqualTo("InvalidEndpointAddress");
        });
        assertThat(state.endpointsOf(HTTP)).hasSize(1);
    }

    @Test
    void theJournalNamesThePortsChangedSinceAGeneration() {
        long empty = state.generation();
        services.update(null, svc("default", "web").clusterIp("10.96.0.10").port("http", 80, 8080)
                .port("metrics", 9090, 9090).build());
        state.applyChanges(services, endpoints);
        long withService = state.generation();
        ServicePortName metrics = new ServicePortName("default", "web", "metrics", Protocol.TCP);
        assertThat(state.changedServicePortsSince(empty)).hasValueSatisfying(ports -> assertThat(ports)
                .containsExactlyInAnyOrder(HTTP, metrics));

        endpoints.update(null, webSlice("10.244.1.5"));
        state.applyChanges(services, endpoints);
        assertThat(state.changedServicePortsSince(withService)).hasValueSatisfying(ports -> assertThat(ports)
                .containsExactly(HTTP));
        state.applyChanges(services, endpoints);
        assertThat(state.changedServicePortsSince(state.generation())).hasValueSatisfying(ports -> assertThat(ports)
                .isEmpty());
        assertThat(state.changedServicePortsSince(state.generation() + 1)).as("not a generation yet").isEmpty();

        for (int i = 0; i < 20; i++) {
            endpoints.update(null, slice("default", "api-" + i, "api").port("http", 8080)
                    .ready("10.244.1." + (10 + i), "n").build());
            state.applyChanges(services, endpoints);
        }
        assertThat(state.changedServicePortsSince(withService)).as("older than the journal").isEmpty();
    }

    @Test
    void healthCheckAndLocalEndpointMapsFollowEachChange() {
        var local = svc("default", "web").type("LoadBalancer").clusterIp("10.96.0.10").etp("Local")
                .healthCheckNodePort(31000).port("http", "TCP", 80, "8080", 30080)
                .port("https", "TCP", 443, "8443", 30443).build();
        services.update(null, local);
        endpoints.update(null, webSlice("10.244.0.5", "10.244.0.6", "10.244.1.5"));
        ProxyChanges first = state.applyChanges(services, endpoints);
        assertThat(first.healthCheckNodePorts()).containsExactly(Map.entry("default/web", 31000));
        assertThat(first.localReadyEndpoints()).containsExactly(Map.entry("default/web", 2));
        assertThat(state.services().ofService("default/web")).hasSize(2);

        EndpointSliceInfo fewer = webSlice("10.244.0.5", "10.244.1.5");
        endpoints.update(webSlice("10.244.0.5", "10.244.0.6", "10.244.1.5"), fewer);
        ProxyChanges second = state.applyChanges(services, endpoints);
        assertThat(second.localReadyEndpoints()).containsExactly(Map.entry("default/web", 1));
        assertThat(second.healthCheckNodePorts()).isSameAs(first.healthCheckNodePorts());

        services.update(local, svc("default", "web").type("LoadBalancer")
                .clusterIp("10.96.0.10").port("http", "TCP", 80, "8080", 30080).build());
        ProxyChanges third = state.applyChanges(services, endpoints);
        assertThat(third.healthCheckNodePorts()).as("externalTrafficPolicy Cluster").isEmpty();
        assertThat(state.services().ofService("default/web")).extracting(p -> p.name().port())
                .containsExactly("http");
        endpoints.update(fewer, null);
        assertThat(state.applyChanges(services, endpoints).localReadyEndpoints()).isEmpty();
    }
}
