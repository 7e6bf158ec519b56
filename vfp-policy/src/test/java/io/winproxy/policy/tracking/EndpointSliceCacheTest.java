package io.winproxy.policy.tracking;

import static io.winproxy.policy.testing.Slice.slice;
import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.policy.model.EndpointInfo;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.Protocol;
import io.winproxy.policy.model.ServicePortName;
import io.winproxy.policy.testing.Slice;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** kube-proxy's endpointslicecache_test.go cases (kube-proxy-common §7.3). */
class EndpointSliceCacheTest {
    static final ServicePortName P80 = new ServicePortName("ns1", "svc1", "port-0", Protocol.TCP);
    static final ServicePortName P443 = new ServicePortName("ns1", "svc1", "port-1", Protocol.TCP);

    /**
     * Upstream's generator: endpoints 10.0.{id}.{i}; unready when i%unreadyMod==0,
     * terminating when i%terminatingMod==0.
     */
    static EndpointSliceInfo generate(String ns, String svc, int id, int count, int unreadyMod, int terminatingMod,
                                      List<String> hosts, int... ports) {
        Slice s = slice(ns, svc + "-" + id, svc);
        for (int i = 0; i < ports.length; i++) {
            s.port("port-" + i, "TCP", ports[i]);
        }
        for (int i = 1; i <= count; i++) {
            boolean readyCond = i % unreadyMod != 0;
            boolean terminating = i % terminatingMod == 0;
            s.endpoint("10.0." + id + "." + i, hosts.get(i % hosts.size()), readyCond && !terminating, readyCond,
                    terminating);
        }
        return s.build();
    }

    static EndpointSliceInfo generate(int id, int count, int unreadyMod, List<String> hosts, int... ports) {
        return generate("ns1", "svc1", id, count, unreadyMod, 999, hosts, ports);
    }

    static Map<ServicePortName, List<EndpointInfo>> build(EndpointSliceInfo... slices) {
        EndpointSliceCache cache = new EndpointSliceCache("host1");
        for (EndpointSliceInfo s : slices) {
            cache.updatePending(s, false);
        }
        cache.checkoutChanges();
        return cache.applied("ns1/svc1").byPort();
    }

    static List<String> keys(List<EndpointInfo> eps) {
        return eps.stream().map(EndpointInfo::key).toList();
    }

    @Test
    void oneSliceWithTwoHostsAndTwoPortsMarksOnlyThisHostsEndpointLocal() {
        Map<ServicePortName, List<EndpointInfo>> m = build(generate(1, 3, 999, List.of("host1", "host2"), 80, 443));
        assertThat(m).containsOnlyKeys(P80, P443);
        assertThat(keys(m.get(P80))).containsExactly("10.0.1.1:80", "10.0.1.2:80", "10.0.1.3:80");
        assertThat(keys(m.get(P443))).containsExactly("10.0.1.1:443", "10.0.1.2:443", "10.0.1.3:443");
        assertThat(m.get(P80)).filteredOn(EndpointInfo::local).extracting(EndpointInfo::ip).containsExactly("10.0.1.2");
    }

    @Test
    void twoSlicesForOnePortAreMergedAndSortedAsStrings() {
        Map<ServicePortName, List<EndpointInfo>> m = build(generate(1, 3, 999, List.of("host1"), 80),
                generate(2, 3, 999, List.of("host1"), 80));
        assertThat(keys(m.get(P80))).containsExactly("10.0.1.1:80", "10.0.1.2:80", "10.0.1.3:80", "10.0.2.1:80",
                "10.0.2.2:80", "10.0.2.3:80");
    }

    @Test
    void aSliceWithTheSameNameReplacesTheEarlierOne() {
        Map<ServicePortName, List<EndpointInfo>> m = build(generate(1, 3, 999, List.of("host1"), 80),
                generate(1, 4, 999, List.of("host1"), 80));
        assertThat(keys(m.get(P80))).containsExactly("10.0.1.1:80", "10.0.1.2:80", "10.0.1.3:80", "10.0.1.4:80");
    }

    @Test
    void theLaterSliceDecidesReadinessAndSortingPutsTenFirst() {
        Map<ServicePortName, List<EndpointInfo>> m = build(generate(1, 10, 3, List.of("host1"), 80),
                generate(1, 10, 6, List.of("host1"), 80));
        List<EndpointInfo> eps = m.get(P80);
        assertThat(eps.get(0).key()).isEqualTo("10.0.1.10:80");
        assertThat(eps).filteredOn(ep -> !ep.ready()).extracting(EndpointInfo::ip).containsExactly("10.0.1.6");
    }

    @Test
    void terminatingEndpointsAreServingButNotReadyAndUnreadyOnesNeither() {
        Map<ServicePortName, List<EndpointInfo>> m = build(generate("ns1", "svc1", 1, 10, 6, 5, List.of("host1"),
                80));
        List<EndpointInfo> eps = m.get(P80);
        assertThat(eps).filteredOn(EndpointInfo::terminating).extracting(EndpointInfo::ip)
                .containsExactlyInAnyOrder("10.0.1.5", "10.0.1.10");
        assertThat(eps).filteredOn(EndpointInfo::terminating).allSatisfy(ep -> {
            assertThat(ep.ready()).isFalse();
            assertThat(ep.serving()).isTrue();
        });
        EndpointInfo six = eps.stream().filter(ep -> ep.ip().equals("10.0.1.6")).findFirst().orElseThrow();
        assertThat(six.ready()).isFalse();
        assertThat(six.serving()).isFalse();
    }

    @Test
    void allUnreadyEndpointsAreNeitherReadyNorServing() {
        Map<ServicePortName, List<EndpointInfo>> m = build(generate(1, 5, 1, List.of("host1"), 80));
        assertThat(m.get(P80)).hasSize(5).allSatisfy(ep -> {
            assertThat(ep.ready()).isFalse();
            assertThat(ep.serving()).isFalse();
        });
    }

    @Test
    void slicesOfOtherServicesAndNamespacesAreKeptApart() {
        EndpointSliceCache cache = new EndpointSliceCache("host1");
        cache.updatePending(generate("ns1", "svc1", 1, 3, 999, 999, List.of("host1"), 80), false);
        cache.updatePending(generate("ns2", "svc1", 2, 3, 999, 999, List.of("host1"), 80), false);
        cache.updatePending(generate("ns1", "svc2", 3, 3, 999, 999, List.of("host1"), 80), false);
        cache.checkoutChanges();
        assertThat(keys(cache.applied("ns1/svc1").byPort().get(P80))).containsExactly("10.0.1.1:80", "10.0.1.2:80",
                "10.0.1.3:80");
    }

    @Test
    void aNilPortBreaksNothing() {
        EndpointSliceInfo s = slice("ns1", "svc1-1", "svc1").port("port-0", "TCP", null).ready("10.0.1.1", "host1")
                .build();
        assertThat(build(s)).isEmpty();
    }

    @Test
    void duplicateIpsOnDifferentPortsAreKeptSeparately() {
        EndpointSliceInfo a = slice("ns1", "svc1-1", "svc1").port("port-0", 80).ready("10.0.1.1", "host1")
                .ready("10.0.1.2", "host1").build();
        EndpointSliceInfo b = slice("ns1", "svc1-2", "svc1").port("port-0", 8080).ready("10.0.1.1", "host1")
                .ready("10.0.1.2", "host1").build();
        assertThat(keys(build(a, b).get(P80))).containsExactly("10.0.1.1:80", "10.0.1.1:8080", "10.0.1.2:80",
                "10.0.1.2:8080");
    }

    @Test
    void aNonTerminatingDuplicateReplacesATerminatingOneButNotTheOtherWayRound() {
        EndpointSliceInfo terminating = slice("ns1", "svc1-a", "svc1").port("port-0", 80)
                .endpoint("10.0.1.1", "host1", false, true, true).build();
        EndpointSliceInfo ready = slice("ns1", "svc1-b", "svc1").port("port-0", 80).ready("10.0.1.1", "host2")
                .build();
        assertThat(build(terminating, ready).get(P80)).singleElement()
                .satisfies(ep -> assertThat(ep.terminating()).isFalse());
        EndpointSliceInfo readyFirst = slice("ns1", "svc1-a", "svc1").port("port-0", 80).ready("10.0.1.1", "host2")
                .build();
        EndpointSliceInfo terminatingLater = slice("ns1", "svc1-b", "svc1").port("port-0", 80)
                .endpoint("10.0.1.1", "host1", false, true, true).build();
        assertThat(build(readyFirst, terminatingLater).get(P80)).singleElement()
                .satisfies(ep -> assertThat(ep.terminating()).isFalse());
    }

    @Test
    void aDuplicateEndpointIsWarnedAboutNamingTheSliceAndUsedOnce() {
        EndpointSliceInfo a = slice("ns1", "svc1-a", "svc1").port("port-0", 80).ready("10.0.1.1", "host1").build();
        EndpointSliceInfo b = slice("ns1", "svc1-b", "svc1").port("port-0", 80).ready("10.0.1.1", "host1")
                .ready("10.0.1.2", "host1").build();
        EndpointSliceCache cache = new EndpointSliceCache("host1");
        cache.updatePending(a, false);
        cache.updatePending(b, false);
        cache.checkoutChanges();
        EndpointSliceCache.ServiceEndpoints applied = cache.applied("ns1/svc1");
        assertThat(applied.byPort().get(P80)).extracting(EndpointInfo::ip).containsExactly("10.0.1.1", "10.0.1.2");
        assertThat(applied.warnings()).singleElement().satisfies(w -> {
            assertThat(w.kind()).isEqualTo("EndpointSlice");
            assertThat(w.name()).isEqualTo("svc1-b");
            assertThat(w.reason()).isEqualTo("DuplicateEndpoint");
            assertThat(w.message()).contains("10.0.1.1:80");
        });
    }

    @Test
    void onlyTheFirstAddressOfAnEndpointIsUsedAndLeadingZerosAreNormalised() {
        EndpointSliceInfo s = slice("ns1", "svc1-1", "svc1").port("port-0", 80)
                .endpoint(new EndpointSliceInfo.SliceEndpoint(List.of("10.0.1.010", "10.0.9.9"), true, null, null,
                        "host1", "zone-a", List.of("zone-a"), List.of()))
                .build();
        EndpointInfo ep = build(s).get(P80).get(0);
        assertThat(ep.ip()).isEqualTo("10.0.1.10");
        assertThat(ep.serving()).isTrue();
        assertThat(ep.zoneHints()).containsExactly("zone-a");
        assertThat(ep.zone()).isEqualTo("zone-a");
    }

    @Test
    void changeDetectionComparesPortsAndEndpointsInOrder() {
        EndpointSliceCache cache = new EndpointSliceCache("host1");
        EndpointSliceInfo base = slice("ns1", "svc1-1", "svc1").port("a", 80).port("b", 443).ready("10.0.1.1", "h")
                .ready("10.0.1.2", "h").build();
        assertThat(cache.updatePending(base, false)).isTrue();
        cache.checkoutChanges();
        assertThat(cache.updatePending(base, false)).as("identical").isFalse();
        assertThat(cache.updatePending(slice("ns1", "svc1-1", "svc1").port("b", 443).port("a", 80)
                .ready("10.0.1.1", "h").ready("10.0.1.2", "h").build(), false)).as("ports out of order").isTrue();
        assertThat(cache.updatePending(base, false)).as("back to the applied slice is still a pending change")
                .isTrue();
        cache.checkoutChanges();
        assertThat(cache.updatePending(slice("ns1", "svc1-1", "svc1").port("a", 80).port("b", 443)
                .ready("10.0.1.2", "h").ready("10.0.1.1", "h").build(), false)).as("endpoints out of order").isTrue();
        cache.checkoutChanges();
        assertThat(cache.updatePending(slice("ns1", "svc1-1", "svc1").port("a", 80).build(), false))
                .as("endpoint removed, port removed").isTrue();
        assertThat(cache.updatePending(slice("ns9", "nope-1", "nope").build(), true))
                .as("removing an unknown slice").isFalse();
    }

    @Test
    void theResultDoesNotDependOnTheOrderSlicesArrive() {
        EndpointSliceInfo a = slice("ns1", "svc1-a", "svc1").port("port-0", 80)
                .endpoint("10.0.1.1", "host1", false, true, true).ready("10.0.1.2", "host1").build();
        EndpointSliceInfo b = slice("ns1", "svc1-b", "svc1").port("port-0", 80).ready("10.0.1.1", "host2")
                .endpoint("10.0.1.2", "host2", false, true, true).build();
        assertThat(build(a, b)).isEqualTo(build(b, a));
        assertThat(build(a, b).get(P80)).extracting(EndpointInfo::nodeName).containsExactly("host2", "host1");
    }
}
