package io.winproxy.policy.tracking;

import static io.winproxy.policy.testing.Svc.svc;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import io.winproxy.policy.desired.PolicyWarning;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.Protocol;
import io.winproxy.policy.model.ServiceInfo;
import io.winproxy.policy.model.ServicePortInfo;
import io.winproxy.policy.model.ServicePortName;
import io.winproxy.policy.model.TrafficPolicy;
import io.winproxy.policy.testing.Svc;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Service change coalescing, service-port processing and bad-input handling. */
class ServiceChangeTrackerTest {
    final ServiceChangeTracker tracker = new ServiceChangeTracker();
    final EndpointsChangeTracker noEndpoints = new EndpointsChangeTracker("node-a", Instant.EPOCH);
    final ProxyState state = new ProxyState();

    static Svc web() {
        return svc("default", "web").clusterIp("10.96.0.10").port("http", 80, 8080);
    }

    ProxyChanges apply() {
        return state.applyChanges(tracker, noEndpoints);
    }

    @Test
    void anAddIsPendingUntilApplied() {
        assertThat(tracker.update(null, web().build())).isTrue();
        assertThat(tracker.pendingCount()).isEqualTo(1);
        ProxyChanges changes = apply();
        assertThat(changes.changedServices()).containsExactly("default/web");
        assertThat(tracker.pendingCount()).isZero();
        assertThat(state.services().size()).isEqualTo(1);
    }

    @Test
    void anAddFollowedByADeleteBeforeTheSyncIsNoChange() {
        ServiceInfo s = web().build();
        tracker.update(null, s);
        assertThat(tracker.update(s, null)).isFalse();
        assertThat(apply().changedServices()).isEmpty();
    }

    @Test
    void changesToFieldsTheProxyIgnoresAreDropped() {
        ServiceInfo s = web().build();
        tracker.update(null, s);
        apply();
        ServiceInfo relabelled = web().annotation("owner", "team-a").build();
        assertThat(tracker.update(s, relabelled)).isFalse();
        assertThat(apply().isEmpty()).isTrue();
    }

    @Test
    void aRevertedChangeIsDroppedButTheTrackerStillReportsOtherPendingServices() {
        ServiceInfo s = web().build();
        ServiceInfo other = svc("default", "other").clusterIp("10.96.0.11").port("", 53, 53).build();
        tracker.update(null, s);
        tracker.update(null, other);
        apply();
        ServiceInfo changed = web().type("NodePort").build();
        tracker.update(null, svc("default", "third").clusterIp("10.96.0.12").port("", 1, 1).build());
        assertThat(tracker.update(s, changed)).isTrue();
        assertThat(tracker.update(changed, s)).as("web reverted, third still pending").isTrue();
        assertThat(apply().changedServices()).containsExactly("default/third");
    }

    @Test
    void servicePortsCarryTheProcessedFields() {
        tracker.update(null, svc("default", "web").type("LoadBalancer").clusterIp("10.96.0.10", "fd00::10")
                .ipFamilies("IPv4", "IPv6").port("http", "TCP", 80, "http-alt", 30080).externalIp("192.0.2.1")
                .externalIp("2001:db8:0:0::1").ingress("203.0.113.1").clientIpAffinity(0).etp("Local").itp("Local")
                .healthCheckNodePort(31000).trafficDistribution("PreferClose")
                .annotation("preserve-destination", "true")
                .annotation("service.kubernetes.io/topology-mode", "Auto").build());
        apply();
        ServicePortInfo info = state.services().get(new ServicePortName("default", "web", "http", Protocol.TCP))
                .orElseThrow();
        assertThat(info.clusterIp(IpFamily.IPV4)).isEqualTo("10.96.0.10");
        assertThat(info.clusterIp(IpFamily.IPV6)).isEqualTo("fd00::10");
        assertThat(info.targetPort()).isZero();
        assertThat(info.targetPortName()).isEqualTo("http-alt");
        assertThat(info.externalIps(IpFamily.IPV6)).containsExactly("2001:db8::1");
        assertThat(info.loadBalancerIps()).containsExactly("203.0.113.1");
        assertThat(info.stickyMaxAgeSeconds()).isEqualTo(10800);
        assertThat(info.externalTrafficPolicy()).isEqualTo(TrafficPolicy.LOCAL);
        assertThat(info.externalPolicyLocal()).isTrue();
        assertThat(info.internalPolicyLocal()).isTrue();
        assertThat(info.healthCheckNodePort()).isEqualTo(31000);
        assertThat(info.trafficDistribution()).isEqualTo("PreferClose");
        assertThat(info.preserveDestination()).isTrue();
        assertThat(info.topologyMode()).isEqualTo("Auto");
        assertThat(info.usesClusterEndpoints()).isTrue();
        assertThat(info.usesLocalEndpoints()).isTrue();
    }

    @Test
    void badInputIsSkippedWithAWarningNamingTheServiceAndOtherServicesAreUnaffected() {
        tracker.update(null, svc("default", "ext").type("ExternalName").build());
        tracker.update(null, svc("default", "headless").clusterIp("None").port("", 80, 80).build());
        tracker.update(null, svc("default", "badip").clusterIp("10.96.0.300").port("", 80, 80).build());
        tracker.update(null, svc("default", "ports").clusterIp("10.96.0.20").port("zero", 0, 80)
                .port("sctp", "SCTP", 9, "9", 0).port("ok", 81, 81).externalIp("not-an-ip").externalIp("fd00::1")
                .ipFamilies("IPv4", "IPv6").build());
        tracker.update(null, web().build());
        ProxyChanges changes = apply();

        assertThat(state.services().asMap().keySet()).extracting(ServicePortName::toString)
                .containsExactlyInAnyOrder("default/web:http", "default/ports:ok");
        assertThat(changes.newWarnings()).extracting(PolicyWarning::name, PolicyWarning::reason).containsExactly(
                tuple("badip", "InvalidClusterIP"),
                tuple("badip", "InvalidClusterIP"),
                tuple("ext", "ServiceNotProxied"),
                tuple("headless", "ServiceNotProxied"),
                tuple("ports", "IPFamilyMismatch"),
                tuple("ports", "InvalidIP"),
                tuple("ports", "IPFamilyMismatch"),
                tuple("ports", "InvalidServicePort"),
                tuple("ports", "UnsupportedProtocol"));
        assertThat(changes.newWarnings()).allSatisfy(w -> assertThat(w.kind()).isEqualTo("Service"));
        assertThat(state.warnings()).hasSize(9);
        PolicyWarning first = changes.newWarnings().get(0);
        assertThat(first.toString()).isEqualTo("Service default/badip: spec.clusterIPs entry '10.96.0.300' is not an"
                + " IP address; skipped");
    }

    @Test
    void fixingAServiceClearsItsWarnings() {
        ServiceInfo bad = svc("default", "w").clusterIp("10.96.0.10").port("", 0, 80).build();
        tracker.update(null, bad);
        apply();
        assertThat(state.warnings()).hasSize(1);
        tracker.update(bad, svc("default", "w").clusterIp("10.96.0.10").port("", 80, 80).build());
        apply();
        assertThat(state.warnings()).isEmpty();
    }

    @Test
    void removingAUdpPortReportsItsClusterIps() {
        ServiceInfo dns = svc("kube-system", "dns").clusterIp("10.96.0.10").port("dns", "UDP", 53, "53", 0)
                .port("dns-tcp", "TCP", 53, "53", 0).build();
        tracker.update(null, dns);
        apply();
        tracker.update(dns, svc("kube-system", "dns").clusterIp("10.96.0.10").port("dns-tcp", "TCP", 53, "53", 0)
                .build());
        assertThat(apply().deletedUdpClusterIps()).containsExactly("10.96.0.10");
        tracker.update(dns, null);
        assertThat(apply().deletedUdpClusterIps()).isEmpty();
    }

    @Test
    void healthCheckNodePortsAreReportedPerService() {
        tracker.update(null, svc("default", "lb").type("LoadBalancer").clusterIp("10.96.0.10")
                .port("a", "TCP", 80, "80", 30080).port("b", "TCP", 443, "443", 30443).etp("Local")
                .healthCheckNodePort(31000).build());
        tracker.update(null, web().build());
        assertThat(apply().healthCheckNodePorts()).containsExactly(Map.entry("default/lb", 31000));
    }
}
