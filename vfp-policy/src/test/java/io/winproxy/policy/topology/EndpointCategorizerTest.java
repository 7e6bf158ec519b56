package io.winproxy.policy.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.policy.model.EndpointInfo;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.Protocol;
import io.winproxy.policy.model.ServicePortInfo;
import io.winproxy.policy.model.ServicePortName;
import io.winproxy.policy.model.TrafficPolicy;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** kube-proxy's TestCategorizeEndpoints table (kube-proxy-common §7.2) plus the newest node-hint cases. */
class EndpointCategorizerTest {

    static ServicePortInfo service(TrafficPolicy itp, TrafficPolicy etp, int nodePort) {
        return new ServicePortInfo(new ServicePortName("ns", "svc", "", Protocol.TCP), "NodePort",
                Map.of(IpFamily.IPV4, "10.96.0.1"), 80, 80, "", nodePort, List.of(), List.of(), false, 0, itp, etp,
                0, "", false, "");
    }

    static ServicePortInfo plain() {
        return service(TrafficPolicy.CLUSTER, TrafficPolicy.CLUSTER, 0);
    }

    static EndpointInfo ep(String ip, boolean ready, boolean serving, boolean terminating, boolean local,
                           String... zoneHints) {
        return new EndpointInfo(ip, 80, local ? "node-1" : "node-2", "", local, ready, serving, terminating,
                new HashSet<>(Arrays.asList(zoneHints)), Set.of());
    }

    static EndpointInfo ready(String ip, boolean local, String... zoneHints) {
        return ep(ip, true, true, false, local, zoneHints);
    }

    static EndpointInfo st(String ip, boolean local) {
        return ep(ip, false, true, true, local);
    }

    static Set<String> ips(List<EndpointInfo> eps) {
        return eps.stream().map(EndpointInfo::ip).collect(Collectors.toSet());
    }

    static CategorizedEndpoints run(ServicePortInfo svc, String zone, EndpointInfo... eps) {
        return EndpointCategorizer.categorize(List.of(eps), svc, "node-1", zone, true);
    }

    @Test
    void hintsMatchingThisZoneFilterTheClusterEndpoints() {
        CategorizedEndpoints c = run(plain(), "zone-a", ready("10.1.2.3", false, "zone-a"),
                ready("10.1.2.4", false, "zone-b"), ready("10.1.2.5", false, "zone-c"),
                ready("10.1.2.6", false, "zone-a"));
        assertThat(ips(c.clusterEndpoints())).containsExactlyInAnyOrder("10.1.2.3", "10.1.2.6");
        assertThat(c.localEndpoints()).isEmpty();
    }

    @Test
    void externalPolicyLocalWithANodePortAddsLocalEndpointsToTheTopologyFilteredClusterSet() {
        for (ServicePortInfo svc : List.of(service(TrafficPolicy.CLUSTER, TrafficPolicy.LOCAL, 30000),
                service(TrafficPolicy.LOCAL, TrafficPolicy.CLUSTER, 30000))) {
            CategorizedEndpoints c = run(svc, "zone-a", ready("10.1.2.3", true, "zone-a"),
                    ready("10.1.2.4", true, "zone-b"), ready("10.1.2.5", false, "zone-c"),
                    ready("10.1.2.6", false, "zone-a"));
            assertThat(ips(c.clusterEndpoints())).containsExactlyInAnyOrder("10.1.2.3", "10.1.2.6");
            assertThat(ips(c.localEndpoints())).containsExactlyInAnyOrder("10.1.2.3", "10.1.2.4");
            assertThat(ips(c.allReachableEndpoints())).containsExactlyInAnyOrder("10.1.2.3", "10.1.2.4", "10.1.2.6");
        }
    }

    @Test
    void withoutAZoneLabelOrWithAnUnmatchedZoneNothingIsFiltered() {
        for (String zone : List.of("", "zone-b")) {
            CategorizedEndpoints c = run(plain(), zone, ready("10.1.2.3", false, "zone-a"));
            assertThat(ips(c.clusterEndpoints())).containsExactly("10.1.2.3");
        }
    }

    @Test
    void unreadyEndpointsAreNotUsedAndTopologyTurnsOffWhenThisZonesEndpointsAreUnready() {
        CategorizedEndpoints one = run(plain(), "zone-a", ready("10.1.2.3", false, "zone-a"),
                ready("10.1.2.4", false, "zone-b"), ready("10.1.2.5", false, "zone-c"),
                ep("10.1.2.6", false, false, false, false, "zone-a"));
        assertThat(ips(one.clusterEndpoints())).containsExactly("10.1.2.3");

        CategorizedEndpoints off = run(plain(), "zone-a", ep("10.1.2.3", false, false, false, false, "zone-a"),
                ready("10.1.2.4", false, "zone-b"), ready("10.1.2.5", false, "zone-c"),
                ep("10.1.2.6", false, false, false, false, "zone-a"));
        assertThat(ips(off.clusterEndpoints())).containsExactlyInAnyOrder("10.1.2.4", "10.1.2.5");
    }

    @Test
    void oneReadyEndpointWithoutAHintDisablesTopology() {
        CategorizedEndpoints c = run(plain(), "zone-a", ready("10.1.2.3", false, "zone-a"),
                ready("10.1.2.4", false, "zone-b"), ready("10.1.2.5", false), ready("10.1.2.6", false, "zone-a"));
        assertThat(c.clusterEndpoints()).hasSize(4);
    }

    @Test
    void multiZoneHintsMatchThisZone() {
        CategorizedEndpoints c = run(plain(), "zone-c", ready("10.1.2.3", false, "zone-a", "zone-b", "zone-c"),
                ready("10.1.2.4", false, "zone-b", "zone-c"), ready("10.1.2.5", false, "zone-b", "zone-d"),
                ready("10.1.2.6", false, "zone-c"));
        assertThat(ips(c.clusterEndpoints())).containsExactlyInAnyOrder("10.1.2.3", "10.1.2.4", "10.1.2.6");
    }

    @Test
    void externalPolicyLocalWithLocalAndRemoteInTwoZones() {
        CategorizedEndpoints c = run(service(TrafficPolicy.CLUSTER, TrafficPolicy.LOCAL, 30000), "zone-a",
                ready("10.0.0.0", true, "zone-a"), ready("10.0.0.1", true, "zone-b"),
                ready("10.0.0.2", false, "zone-a"), ready("10.0.0.3", false, "zone-b"));
        assertThat(ips(c.clusterEndpoints())).containsExactlyInAnyOrder("10.0.0.0", "10.0.0.2");
        assertThat(ips(c.localEndpoints())).containsExactlyInAnyOrder("10.0.0.0", "10.0.0.1");
        assertThat(ips(c.allReachableEndpoints())).containsExactlyInAnyOrder("10.0.0.0", "10.0.0.1", "10.0.0.2");
    }

    @Test
    void internalLocalCases() {
        ServicePortInfo itpLocal = service(TrafficPolicy.LOCAL, TrafficPolicy.CLUSTER, 0);
        CategorizedEndpoints none = EndpointCategorizer.categorize(List.of(), itpLocal, "node-1", "", true);
        assertThat(none.localEndpoints()).isEmpty();
        assertThat(none.hasAnyEndpoints()).isFalse();

        CategorizedEndpoints allRemote = run(itpLocal, "", ready("10.0.0.0", false), ready("10.0.0.1", false));
        assertThat(allRemote.localEndpoints()).isEmpty();
        assertThat(allRemote.hasAnyEndpoints()).isTrue();
        assertThat(allRemote.clusterEndpoints()).isEmpty();

        CategorizedEndpoints allLocal = run(itpLocal, "", ready("10.0.0.0", true), ready("10.0.0.1", true));
        assertThat(ips(allLocal.localEndpoints())).containsExactlyInAnyOrder("10.0.0.0", "10.0.0.1");

        CategorizedEndpoints some = run(itpLocal, "", ready("10.0.0.0", true), ready("10.0.0.1", false));
        assertThat(ips(some.localEndpoints())).containsExactly("10.0.0.0");
        assertThat(ips(some.allReachableEndpoints())).containsExactly("10.0.0.0");
    }

    @Test
    void clusterPolicyUsesReadyEndpointsAndFallsBackToServingTerminating() {
        CategorizedEndpoints noneReady = run(plain(), "", ep("10.0.0.0", false, false, false, true),
                ep("10.0.0.1", false, false, false, false));
        assertThat(noneReady.clusterEndpoints()).isEmpty();
        assertThat(noneReady.hasAnyEndpoints()).isFalse();

        CategorizedEndpoints someReady = run(plain(), "", ready("10.0.0.0", true),
                ep("10.0.0.1", false, false, false, false));
        assertThat(ips(someReady.clusterEndpoints())).containsExactly("10.0.0.0");

        CategorizedEndpoints allTerminating = run(plain(), "", st("10.0.0.0", true), st("10.0.0.1", false));
        assertThat(ips(allTerminating.clusterEndpoints())).containsExactlyInAnyOrder("10.0.0.0", "10.0.0.1");
    }

    @Test
    void mixedPoliciesWithSomeLocalEndpoints() {
        for (ServicePortInfo svc : List.of(service(TrafficPolicy.LOCAL, TrafficPolicy.CLUSTER, 30000),
                service(TrafficPolicy.CLUSTER, TrafficPolicy.LOCAL, 30000),
                service(TrafficPolicy.LOCAL, TrafficPolicy.LOCAL, 30000))) {
            CategorizedEndpoints c = run(svc, "", ready("10.0.0.0", true), ready("10.0.0.1", false));
            assertThat(ips(c.clusterEndpoints())).containsExactlyInAnyOrder("10.0.0.0", "10.0.0.1");
            assertThat(ips(c.localEndpoints())).containsExactly("10.0.0.0");
            assertThat(ips(c.allReachableEndpoints())).containsExactlyInAnyOrder("10.0.0.0", "10.0.0.1");
        }
    }

    @Test
    void bothLocalWithOnlyRemoteEndpoints() {
        ServicePortInfo both = service(TrafficPolicy.LOCAL, TrafficPolicy.LOCAL, 30000);
        CategorizedEndpoints ready = run(both, "", ready("10.0.0.0", false), ready("10.0.0.1", false));
        assertThat(ips(ready.clusterEndpoints())).containsExactlyInAnyOrder("10.0.0.0", "10.0.0.1");
        assertThat(ready.localEndpoints()).isEmpty();
        assertThat(ips(ready.allReachableEndpoints())).containsExactlyInAnyOrder("10.0.0.0", "10.0.0.1");

        CategorizedEndpoints terminating = run(both, "", st("10.0.0.0", false), st("10.0.0.1", false));
        assertThat(ips(terminating.clusterEndpoints())).containsExactlyInAnyOrder("10.0.0.0", "10.0.0.1");
        assertThat(terminating.localEndpoints()).isEmpty();
        assertThat(terminating.hasAnyEndpoints()).isTrue();
    }

    @Test
    void localServingTerminatingEndpointIsUsedWhenNoLocalEndpointIsReady() {
        CategorizedEndpoints c = run(service(TrafficPolicy.CLUSTER, TrafficPolicy.LOCAL, 30000), "",
                ready("10.0.0.0", false), ep("10.0.0.1", false, false, true, true), st("10.0.0.2", true),
                st("10.0.0.3", false));
        assertThat(ips(c.clusterEndpoints())).containsExactly("10.0.0.0");
        assertThat(ips(c.localEndpoints())).containsExactly("10.0.0.2");
        assertThat(ips(c.allReachableEndpoints())).containsExactlyInAnyOrder("10.0.0.0", "10.0.0.2");
    }

    @Test
    void externalPolicyLocalWithoutExternalAccessIsIgnored() {
        CategorizedEndpoints c = run(service(TrafficPolicy.CLUSTER, TrafficPolicy.LOCAL, 0), "",
                ready("10.0.0.0", true), ready("10.0.0.1", false));
        assertThat(c.localEndpoints()).isEmpty();
        assertThat(ips(c.clusterEndpoints())).containsExactlyInAnyOrder("10.0.0.0", "10.0.0.1");
    }

    @Test
    void internalLocalInternalOnlyServiceHasNoClusterSet() {
        CategorizedEndpoints c = run(service(TrafficPolicy.LOCAL, TrafficPolicy.CLUSTER, 0), "",
                ready("10.0.0.0", false), ready("10.0.0.1", true));
        assertThat(c.clusterEndpoints()).isEmpty();
        assertThat(ips(c.localEndpoints())).containsExactly("10.0.0.1");
        assertThat(ips(c.allReachableEndpoints())).containsExactly("10.0.0.1");
    }

    @Test
    void nodeHintsNamingThisNodeSelectOnlyThoseEndpointsElseZoneHintsApply() {
        EndpointInfo mine = new EndpointInfo("10.0.0.1", 80, "node-1", "zone-a", true, true, true, false,
                Set.of("zone-a"), Set.of("node-1"));
        EndpointInfo sameZone = new EndpointInfo("10.0.0.2", 80, "node-2", "zone-a", false, true, true, false,
                Set.of("zone-a"), Set.of("node-2"));
        EndpointInfo otherZone = new EndpointInfo("10.0.0.3", 80, "node-3", "zone-b", false, true, true, false,
                Set.of("zone-b"), Set.of("node-3"));
        List<EndpointInfo> eps = List.of(mine, sameZone, otherZone);
        assertThat(ips(EndpointCategorizer.categorize(eps, plain(), "node-1", "zone-a", true).clusterEndpoints()))
                .containsExactly("10.0.0.1");
        assertThat(ips(EndpointCategorizer.categorize(eps, plain(), "node-9", "zone-a", true).clusterEndpoints()))
                .containsExactlyInAnyOrder("10.0.0.1", "10.0.0.2");
        assertThat(ips(EndpointCategorizer.categorize(eps, plain(), "node-1", "zone-a", false).clusterEndpoints()))
                .containsExactlyInAnyOrder("10.0.0.1", "10.0.0.2");
    }
}
