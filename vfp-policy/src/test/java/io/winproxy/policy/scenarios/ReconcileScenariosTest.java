package io.winproxy.policy.scenarios;

import static io.winproxy.policy.testing.Slice.slice;
import static io.winproxy.policy.testing.Svc.svc;
import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.desired.PolicyCalculator;
import io.winproxy.policy.desired.PolicyConfig;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.Protocol;
import io.winproxy.policy.model.ServiceInfo;
import io.winproxy.policy.plan.ObservedEndpoint;
import io.winproxy.policy.plan.Ownership;
import io.winproxy.policy.plan.Plan;
import io.winproxy.policy.plan.PlanCalculator;
import io.winproxy.policy.plan.PlanStep;
import io.winproxy.policy.testing.PolicyHarness;
import io.winproxy.policy.tracking.EndpointsChangeTracker;
import io.winproxy.policy.tracking.ProxyState;
import io.winproxy.policy.tracking.ServiceChangeTracker;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Where winproxy differs from upstream on purpose: converged syncs, restart adoption and drift repair. */
class ReconcileScenariosTest {
    static final ServiceInfo WEB = svc("default", "web").type("LoadBalancer").clusterIp("10.96.0.10")
            .port("http", "TCP", 80, "8080", 30080).externalIp("192.0.2.10").ingress("203.0.113.7")
            .clientIpAffinity(0).build();
    static final EndpointSliceInfo WEB_EPS = slice("default", "web-1", "web").port("http", 8080)
            .ready("192.168.4.4", PolicyHarness.NODE).ready("192.168.2.3", "node-b").ready("192.168.2.4", "node-b")
            .build();

    static PolicyHarness programmed() {
        PolicyHarness h = PolicyHarness.overlay();
        h.host.localEndpoint("EP-LOCAL", "192.168.4.4");
        h.add(WEB).add(WEB_EPS).sync();
        return h;
    }

    @Test
    void aSyncWithoutChangesPlansNothingAndWritesNothing() {
        PolicyHarness h = programmed();
        int writes = h.host.writes;
        assertThat(h.sync().steps()).isEmpty();
        assertThat(h.sync().steps()).isEmpty();
        assertThat(h.host.writes).isEqualTo(writes);
    }

    @Test
    void aRestartWithALostJournalAdoptsEverythingWithoutWrites() {
        PolicyHarness h = programmed();
        int writes = h.host.writes;
        int objects = h.host.loadBalancers().size() + h.host.endpoints().size();

        ServiceChangeTracker services = new ServiceChangeTracker();
        EndpointsChangeTracker endpoints = new EndpointsChangeTracker(PolicyHarness.NODE, Instant.EPOCH);
        services.update(null, WEB);
        endpoints.update(null, WEB_EPS);
        ProxyState fresh = new ProxyState();
        fresh.applyChanges(services, endpoints);
        DesiredState desired = new PolicyCalculator(PolicyConfig.defaults(), List.of()).calculate(fresh, h.node());
        Plan plan = PlanCalculator.plan(desired, h.host.observe(), Ownership.NONE, false);

        assertThat(plan.steps()).allMatch(s -> s instanceof PlanStep.AdoptLoadBalancer
                || s instanceof PlanStep.AdoptRemoteEndpoint);
        assertThat(plan.steps()).filteredOn(s -> s instanceof PlanStep.AdoptLoadBalancer).hasSize(4);
        assertThat(plan.steps()).filteredOn(s -> s instanceof PlanStep.AdoptRemoteEndpoint)
                .hasSize((int) h.host.endpoints().values().stream().filter(ObservedEndpoint::remote).count());
        assertThat(plan.isEmpty()).isTrue();
        h.host.apply(plan);
        assertThat(h.host.writes).isEqualTo(writes);
        assertThat(h.host.loadBalancers().size() + h.host.endpoints().size()).isEqualTo(objects);
    }

    @Test
    void aLoadBalancerDeletedBehindWinproxysBackIsRestoredOnTheNextSync() {
        PolicyHarness h = programmed();
        String id = h.host.lb("203.0.113.7:80/TCP").orElseThrow().id();
        h.host.deleteBehindTheBack(id);

        Plan plan = h.sync();

        assertThat(plan.steps()).singleElement().isInstanceOf(PlanStep.CreateLoadBalancer.class);
        assertThat(h.host.lb("203.0.113.7:80/TCP")).isPresent();
        assertThat(h.trace("198.51.100.1", "203.0.113.7", 80, Protocol.TCP).backends())
                .containsExactlyInAnyOrder("192.168.4.4:8080", "192.168.2.3:8080", "192.168.2.4:8080");
    }

    @Test
    void aRemoteEndpointDeletedBehindWinproxysBackIsRecreatedAndItsLoadBalancersRepaired() {
        PolicyHarness h = programmed();
        String gone = h.host.endpointByIp("192.168.2.3").orElseThrow().id();
        h.host.endpoints().remove(gone);

        h.sync();

        assertThat(h.host.endpointByIp("192.168.2.3")).isPresent();
        assertThat(h.host.loadBalancers().values()).noneMatch(lb -> lb.endpointIds().contains(gone));
        assertThat(h.sync().steps()).isEmpty();
    }

    @Test
    void deletingTheServiceRemovesItsLoadBalancersAndRemoteEndpointsButNotLocalOnes() {
        PolicyHarness h = programmed();
        h.delete(WEB).delete(WEB_EPS).sync();
        assertThat(h.host.loadBalancers()).isEmpty();
        assertThat(h.host.endpoints()).containsOnlyKeys("EP-LOCAL");
    }
}
