package io.winproxy.policy.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.LoadBalancerKey;
import io.winproxy.policy.desired.LoadBalancerKind;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.Protocol;
import io.winproxy.policy.model.ServicePortName;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** Every field winproxy writes to a load balancer is part of its fingerprint: changing any one changes it. */
class FingerprintsTest {
    private static final ServicePortName WEB = new ServicePortName("default", "web", "http", Protocol.TCP);
    private static final DesiredLoadBalancer BASE = new DesiredLoadBalancer(WEB, LoadBalancerKind.CLUSTER_IP,
            new LoadBalancerKey(IpFamily.IPV4, "10.96.0.80", Protocol.TCP, 80), 8080,
            List.of("10.244.1.5", "10.244.2.6"), "10.244.1.2", 0, 0, 0);
    private static final List<String> REFS = List.of("ep-local", "ep-remote");

    private static DesiredLoadBalancer with(LoadBalancerKey key, int internalPort, List<String> backends,
                                            String sourceVip, int flags, int pmFlags, int distribution) {
        return new DesiredLoadBalancer(WEB, LoadBalancerKind.CLUSTER_IP, key, internalPort, backends, sourceVip,
                flags, pmFlags, distribution);
    }

    @Test
    void eachWrittenFieldChangesTheFingerprint() {
        String base = Fingerprints.loadBalancer(BASE, REFS);
        LoadBalancerKey k = BASE.key();
        Map<String, DesiredLoadBalancer> variants = Map.of(
                "vip", with(new LoadBalancerKey(IpFamily.IPV4, "10.96.0.81", Protocol.TCP, 80), 8080, BASE.backends(),
                        "10.244.1.2", 0, 0, 0),
                "protocol", with(new LoadBalancerKey(IpFamily.IPV4, "10.96.0.80", Protocol.UDP, 80), 8080,
                        BASE.backends(), "10.244.1.2", 0, 0, 0),
                "external port", with(new LoadBalancerKey(IpFamily.IPV4, "10.96.0.80", Protocol.TCP, 81), 8080,
                        BASE.backends(), "10.244.1.2", 0, 0, 0),
                "internal port", with(k, 8081, BASE.backends(), "10.244.1.2", 0, 0, 0),
                "source VIP", with(k, 8080, BASE.backends(), "10.244.1.3", 0, 0, 0),
                "no source VIP", with(k, 8080, BASE.backends(), "", 0, 0, 0),
                "flags", with(k, 8080, BASE.backends(), "10.244.1.2", DesiredLoadBalancer.FLAG_DSR, 0, 0),
                "port-mapping flags", with(k, 8080, BASE.backends(), "10.244.1.2", 0, 16, 0),
                "distribution", with(k, 8080, BASE.backends(), "10.244.1.2", 0, 0, 1),
                "backend IP", with(k, 8080, List.of("10.244.1.5", "10.244.2.7"), "10.244.1.2", 0, 0, 0));
        variants.forEach((field, lb) -> assertThat(Fingerprints.loadBalancer(lb, REFS)).as(field).isNotEqualTo(base));
    }

    @Test
    void theEndpointEachBackendResolvesToIsPartOfIt() {
        String base = Fingerprints.loadBalancer(BASE, REFS);
        UnaryOperator<String> same = s -> s;
        assertThat(Fingerprints.loadBalancer(BASE, List.of("ep-local", "ep-remote-2"))).isNotEqualTo(base);
        assertThat(Fingerprints.loadBalancer(BASE, List.of("ep-local", Fingerprints.PENDING))).isNotEqualTo(base);
        assertThat(Fingerprints.loadBalancer(BASE, List.of("ep-remote", "ep-local"))).as("order").isNotEqualTo(base);
        assertThat(Fingerprints.loadBalancer(BASE, REFS.stream().map(same).toList())).isEqualTo(base)
                .matches("[0-9a-f]{16}");
    }

    @Test
    void fieldBoundariesCannotCollide() {
        DesiredLoadBalancer a = with(BASE.key(), 8080, List.of("10.244.1.5"), "10.244.1.2", 0, 0, 0);
        assertThat(Fingerprints.loadBalancer(a, List.of("ab"))).isNotEqualTo(Fingerprints.loadBalancer(
                with(BASE.key(), 8080, List.of("10.244.1.5a"), "10.244.1.2", 0, 0, 0), List.of("b")));
    }

    @Test
    void oneReferencePerBackendIsRequired() {
        assertThatThrownBy(() -> Fingerprints.loadBalancer(BASE, List.of("only-one")))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
