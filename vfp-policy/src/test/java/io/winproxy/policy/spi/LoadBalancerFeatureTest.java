package io.winproxy.policy.spi;

import static io.winproxy.policy.testing.Slice.slice;
import static io.winproxy.policy.testing.Svc.svc;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.desired.HnsFlags;
import io.winproxy.policy.desired.LoadBalancerKind;
import io.winproxy.policy.desired.NetworkType;
import io.winproxy.policy.desired.NodeNetwork;
import io.winproxy.policy.desired.PolicyCalculator;
import io.winproxy.policy.desired.PolicyConfig;
import io.winproxy.policy.desired.PolicyWarning;
import io.winproxy.policy.model.ServiceInfo;
import io.winproxy.policy.testing.TestDsrFeature;
import io.winproxy.policy.tracking.EndpointsChangeTracker;
import io.winproxy.policy.tracking.ProxyState;
import io.winproxy.policy.tracking.ServiceChangeTracker;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The LoadBalancerFeature SPI: what a feature sees, what it can change, and the DSR rules expressed through it. */
class LoadBalancerFeatureTest {
    static final NodeNetwork NODE = NodeNetwork.builder(NetworkType.L2BRIDGE, "node-a").nodeIp("10.0.0.1")
            .localEndpoint("10.244.0.5").rootEndpoint("10.244.0.1").build();

    static DesiredState calculate(PolicyConfig config, List<LoadBalancerFeature> features, ServiceInfo svc) {
        ServiceChangeTracker services = new ServiceChangeTracker();
        EndpointsChangeTracker endpoints = new EndpointsChangeTracker("node-a", Instant.EPOCH);
        services.update(null, svc);
        endpoints.update(null, slice(svc.namespace(), svc.name() + "-1", svc.name()).port("http", 8080)
                .ready("10.244.0.5", "node-a").ready("10.244.1.5", "node-b").build());
        ProxyState state = new ProxyState();
        state.applyChanges(services, endpoints);
        return new PolicyCalculator(config, features).calculate(state, NODE);
    }

    static ServiceInfo lbService(String etp) {
        return svc("default", "web").type("LoadBalancer").clusterIp("10.96.0.10")
                .port("http", "TCP", 80, "8080", 30080).externalIp("192.0.2.1").ingress("203.0.113.1").etp(etp)
                .build();
    }

    static DesiredLoadBalancer lb(DesiredState s, LoadBalancerKind kind) {
        return s.loadBalancers().stream().filter(l -> l.kind() == kind).findFirst().orElseThrow();
    }

    @Test
    void featuresSeeEveryServicePortAndFamilyAndTheirWarningsAreReported() {
        List<ServicePortContext> seen = new ArrayList<>();
        LoadBalancerFeature spy = new LoadBalancerFeature() {
            @Override
            public String name() {
                return "spy";
            }

            @Override
            public List<PolicyWarning> warnings(ServicePortContext context) {
                seen.add(context);
                return List.of(new PolicyWarning("Service", "default", "web", "SpyWarning", "seen"));
            }
        };
        DesiredState s = calculate(PolicyConfig.defaults(), List.of(spy), lbService("Cluster"));
        assertThat(seen).singleElement().satisfies(ctx -> {
            assertThat(ctx.service().name().toString()).isEqualTo("default/web:http");
            assertThat(ctx.node()).isEqualTo(NODE);
        });
        assertThat(s.warnings()).extracting(PolicyWarning::reason).containsExactly("SpyWarning");
    }

    @Test
    void withoutFeaturesNoLoadBalancerIsDsr() {
        DesiredState s = calculate(PolicyConfig.defaults(), List.of(), lbService("Local"));
        assertThat(s.loadBalancers()).noneMatch(DesiredLoadBalancer::dsr);
    }

    @Test
    void enableDsrMarksOnlyClusterIpLoadBalancers() {
        DesiredState s = calculate(PolicyConfig.defaults(), List.of(new TestDsrFeature(true)), lbService("Cluster"));
        assertThat(lb(s, LoadBalancerKind.CLUSTER_IP).flags()).isEqualTo(HnsFlags.LB_DSR);
        assertThat(s.loadBalancers()).filteredOn(l -> l.kind() != LoadBalancerKind.CLUSTER_IP)
                .noneMatch(DesiredLoadBalancer::dsr);
    }

    @Test
    void externalTrafficPolicyLocalImpliesDsrOnExternalLoadBalancersOnlyWhenHnsSupportsIt() {
        DesiredState on = calculate(PolicyConfig.defaults().withForwardHealthCheckVip(true),
                List.of(new TestDsrFeature(false)), lbService("Local"));
        assertThat(on.loadBalancers()).filteredOn(l -> l.kind() == LoadBalancerKind.NODE_PORT
                || l.kind() == LoadBalancerKind.EXTERNAL_IP || l.kind() == LoadBalancerKind.LOAD_BALANCER_INGRESS)
                .hasSize(3).allMatch(DesiredLoadBalancer::dsr);
        assertThat(lb(on, LoadBalancerKind.HEALTH_CHECK).dsr()).isFalse();
        assertThat(lb(on, LoadBalancerKind.CLUSTER_IP).dsr()).isFalse();

        DesiredState off = calculate(PolicyConfig.defaults().withHnsSupportsDsr(false),
                List.of(new TestDsrFeature(false)), lbService("Local"));
        assertThat(off.loadBalancers()).noneMatch(DesiredLoadBalancer::dsr);
    }

    @Test
    void aFeatureThatChangesTheKeyIsRejected() {
        LoadBalancerFeature rogue = new LoadBalancerFeature() {
            @Override
            public String name() {
                return "rogue";
            }

            @Override
            public DesiredLoadBalancer adjust(ServicePortContext context, DesiredLoadBalancer lb) {
                return lb.withBackends(List.of("1.2.3.4"));
            }
        };
        assertThatThrownBy(() -> calculate(PolicyConfig.defaults(), List.of(rogue), lbService("Cluster")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("rogue");
    }
}
