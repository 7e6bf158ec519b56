package io.winproxy.policy.plan;

import static io.winproxy.policy.testing.Svc.svc;
import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.desired.LoadBalancerKey;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.ServiceInfo;
import io.winproxy.policy.testing.PolicyHarness;
import io.winproxy.policy.testing.Slice;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The incremental planner against the full one: after random changes to Services, EndpointSlices and the host, the
 * host the incremental plans produce is always one a full plan has nothing to add to.
 */
class IncrementalPlannerTest {

    private static ServiceInfo service(int n, boolean nodePort) {
        return svc("default", "svc-" + n).type(nodePort ? "NodePort" : "ClusterIP").clusterIp("10.96.0." + n)
                .port("http", "TCP", 80, "8080", nodePort ? 30000 + n : 0).build();
    }

    private static EndpointSliceInfo sliceOf(int n, List<Integer> pods) {
        Slice s = Slice.slice("default", "svc-" + n + "-1", "svc-" + n).port("http", 8080);
        for (int pod : pods) {
            // Pods 0-9 run on this node (local endpoints), the others on node-b (remote endpoints).
            s.ready(pod < 10 ? "192.168.4." + pod : "192.168.2." + pod, pod < 10 ? PolicyHarness.NODE : "node-b");
        }
        return s.build();
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void incrementalPlansConvergeExactlyAsFullPlansDo(long seed) {
        Random random = new Random(seed);
        PolicyHarness h = PolicyHarness.overlay();
        for (int pod = 0; pod < 10; pod++) {
            h.host.localEndpoint("EP-LOCAL-" + pod, "192.168.4." + pod);
        }
        IncrementalPlanner planner = new IncrementalPlanner();
        Map<Integer, ServiceInfo> services = new HashMap<>();
        Map<Integer, EndpointSliceInfo> slices = new HashMap<>();
        int incremental = 0;
        for (int step = 0; step < 150; step++) {
            Set<LoadBalancerKey> hostKeys = new java.util.HashSet<>();
            Set<String> hostIps = new java.util.HashSet<>();
            int n = random.nextInt(12) + 1;
            int op = random.nextInt(11);
            if (op < 3 || !services.containsKey(n)) {
                ServiceInfo s = service(n, random.nextBoolean());
                h.update(services.put(n, s), s);
            } else if (op < 4) {
                h.delete(services.remove(n));
            } else if (op < 8) {
                List<Integer> pods = new ArrayList<>();
                for (int i = 0, count = random.nextInt(5); i < count; i++) {
                    pods.add(random.nextInt(40));
                }
                EndpointSliceInfo s = sliceOf(n, pods.stream().distinct().toList());
                h.update(slices.put(n, s), s);
            } else if (op == 10) {
                // An HNS restart or an operator removes a remote endpoint: its IP is all the host says changed.
                List<ObservedEndpoint> remotes = h.host.endpoints().values().stream().filter(ObservedEndpoint::remote)
                        .toList();
                if (!remotes.isEmpty()) {
                    ObservedEndpoint victim = remotes.get(random.nextInt(remotes.size()));
                    h.host.endpoints().remove(victim.id());
                    hostIps.addAll(victim.ips());
                }
            } else {
                // Someone deletes a load balancer behind winproxy's back.
                List<ObservedLoadBalancer> lbs = new ArrayList<>(h.host.loadBalancers().values());
                if (!lbs.isEmpty()) {
                    ObservedLoadBalancer victim = lbs.get(random.nextInt(lbs.size()));
                    h.host.deleteBehindTheBack(victim.id());
                    hostKeys.add(victim.key());
                }
            }
            h.state.applyChanges(h.services, h.endpoints);
            DesiredState desired = h.calculator().calculate(h.state, h.node());
            boolean full = step % 25 == 24;
            Plan plan = planner.plan(desired, h.host.observe(), h.host.ownership(), true,
                    new IncrementalPlanner.HostChanges(false, hostKeys, hostIps), full);
            if (!planner.lastWasFull()) {
                incremental++;
            }
            h.host.apply(plan);
            planner.completed(true);

            Plan check = PlanCalculator.plan(desired, h.host.observe(), h.host.ownership(), true);
            assertThat(check.steps()).as("seed %d step %d: what a full plan still wants", seed, step).isEmpty();
        }
        assertThat(incremental).as("most plans were incremental").isGreaterThan(100);
    }

    /** Services 1 to 40, one backend each, programmed on {@code h}'s host by a first full plan; the desired state. */
    private static DesiredState fortyServicesProgrammed(PolicyHarness h, IncrementalPlanner planner) {
        for (int n = 1; n <= 40; n++) {
            h.update(null, service(n, false));
            h.update(null, sliceOf(n, List.of(10 + n)));
        }
        h.state.applyChanges(h.services, h.endpoints);
        DesiredState desired = h.calculator().calculate(h.state, h.node());
        h.host.apply(planner.plan(desired, h.host.observe(), h.host.ownership(), true,
                IncrementalPlanner.HostChanges.NONE, false));
        planner.completed(true);
        return desired;
    }

    /** An observed state whose lookup answers as a walk would and records what it was asked. */
    private static final class Recording implements ObservedState.Lookup {
        final Set<String> askedIps = new java.util.HashSet<>();
        int asked;
        private final ObservedState walked;

        Recording(ObservedState walked) {
            this.walked = walked;
        }

        ObservedState state() {
            return new ObservedState(walked.endpoints(), walked.loadBalancers(), this);
        }

        @Override
        public List<ObservedEndpoint> endpointsHolding(Set<String> ips) {
            asked++;
            askedIps.addAll(ips);
            return walked.lookup().endpointsHolding(ips);
        }

        @Override
        public List<ObservedLoadBalancer> loadBalancersRead() {
            return List.of(); // FakeHost's are all owned: none read from a document
        }
    }

    @org.junit.jupiter.api.Test
    void aChangeFindsItsEndpointsThroughTheLookupAskingOnlyAboutTheIpsItConcerns() {
        PolicyHarness h = PolicyHarness.overlay();
        IncrementalPlanner planner = new IncrementalPlanner();
        fortyServicesProgrammed(h, planner);
        String before = h.host.endpointByIp("192.168.2.17").orElseThrow().id();
        // Service 7's one backend moves from pod 17 to pod 57 (both on node-b).
        h.update(null, sliceOf(7, List.of(57)));
        h.state.applyChanges(h.services, h.endpoints);
        DesiredState desired = h.calculator().calculate(h.state, h.node());
        Recording lookup = new Recording(h.host.observe());

        Plan plan = planner.plan(desired, lookup.state(), h.host.ownership(), true,
                IncrementalPlanner.HostChanges.NONE, false);

        assertThat(planner.lastWasFull()).isFalse();
        assertThat(lookup.asked).isEqualTo(1);
        assertThat(lookup.askedIps).as("the IPs that changed, the backends of the load balancer to recheck")
                .containsExactlyInAnyOrder("192.168.2.17", "192.168.2.57");
        assertThat(plan.steps()).anyMatch(st -> st instanceof PlanStep.DeleteRemoteEndpoint d && d.id().equals(before))
                .anyMatch(st -> st instanceof PlanStep.CreateRemoteEndpoint c && c.endpoint().ip().equals("192.168.2.57"))
                .hasSize(3);
        h.host.apply(plan);
        planner.completed(true);
        assertThat(PlanCalculator.plan(desired, h.host.observe(), h.host.ownership(), true).steps()).isEmpty();
    }

    @org.junit.jupiter.api.Test
    void periodicPlansRepairWhatNoChangeReportedWithinOneRotationWhileOtherPlansStayIncremental() {
        PolicyHarness h = PolicyHarness.overlay();
        IncrementalPlanner planner = new IncrementalPlanner();
        DesiredState desired = fortyServicesProgrammed(h, planner);
        // A load balancer vanishes and nobody says so (the host changes the observer reports are empty).
        ObservedLoadBalancer victim = h.host.lb("10.96.0.7:80/TCP").orElseThrow();
        h.host.deleteBehindTheBack(victim.id());

        for (int i = 0; i < 3; i++) {
            h.state.applyChanges(h.services, h.endpoints);
            desired = h.calculator().calculate(h.state, h.node());
            Plan quiet = planner.plan(desired, h.host.observe(), h.host.ownership(), true,
                    IncrementalPlanner.HostChanges.NONE, false);
            assertThat(quiet.steps()).as("a sync for a change looks only at what changed").isEmpty();
            planner.completed(true);
        }
        int periodicPlans = 0;
        while (h.host.lb("10.96.0.7:80/TCP").isEmpty() && periodicPlans < IncrementalPlanner.SLICES) {
            h.state.applyChanges(h.services, h.endpoints);
            desired = h.calculator().calculate(h.state, h.node());
            Plan periodic = planner.plan(desired, h.host.observe(), h.host.ownership(), true,
                    IncrementalPlanner.HostChanges.NONE, true);
            assertThat(planner.lastWasFull()).isFalse();
            assertThat(periodic.steps()).hasSizeLessThanOrEqualTo(1);
            h.host.apply(periodic);
            planner.completed(true);
            periodicPlans++;
        }
        assertThat(h.host.lb("10.96.0.7:80/TCP")).as("repaired within one rotation of %d periodic plans",
                IncrementalPlanner.SLICES).isPresent();
        assertThat(PlanCalculator.plan(desired, h.host.observe(), h.host.ownership(), true).steps()).isEmpty();
    }

    @org.junit.jupiter.api.Test
    void aPeriodicSliceOfAHealthyHostPlansOnlyItsOwnLoadBalancersAndAStaleEndpointBringsInItsOwn() {
        PolicyHarness h = PolicyHarness.overlay();
        IncrementalPlanner planner = new IncrementalPlanner();
        DesiredState desired = fortyServicesProgrammed(h, planner);

        // 40 load balancers and 40 remote endpoint IPs: a slice holds 2 of each. The load balancers with a backend at
        // the slice's healthy IPs are not brought in (they have slices of their own).
        for (int i = 0; i < IncrementalPlanner.SLICES; i++) {
            h.state.applyChanges(h.services, h.endpoints);
            desired = h.calculator().calculate(h.state, h.node());
            Plan periodic = planner.plan(desired, h.host.observe(), h.host.ownership(), true,
                    IncrementalPlanner.HostChanges.NONE, true);
            assertThat(planner.lastWasFull()).isFalse();
            assertThat(periodic.steps()).isEmpty();
            assertThat(planner.lastPlannedLoadBalancers()).as("slice %d", i).isEqualTo(2);
            planner.completed(true);
        }

        // A pod's endpoint whose provider address changed behind winproxy's back, and nobody said so: the slice that
        // holds its IP brings in its load balancer, which moves to the replacement in the same plan. Every pod in
        // turn, so that most are in another slice than their load balancer.
        for (int pod = 11; pod <= 50; pod++) {
            String ip = "192.168.2." + pod;
            ObservedEndpoint stale = h.host.endpoints().values().stream()
                    .filter(ep -> ep.remote() && ep.ips().contains(ip)).findFirst().orElseThrow();
            h.host.endpoints().put(stale.id(), new ObservedEndpoint(stale.id(), stale.ips(), true, "10.0.0.99",
                    stale.macAddress()));
            Plan replacing = null;
            for (int i = 0; i < IncrementalPlanner.SLICES && replacing == null; i++) {
                h.state.applyChanges(h.services, h.endpoints);
                desired = h.calculator().calculate(h.state, h.node());
                Plan periodic = planner.plan(desired, h.host.observe(), h.host.ownership(), true,
                        IncrementalPlanner.HostChanges.NONE, true);
                if (periodic.steps().stream().anyMatch(step -> step instanceof PlanStep.CreateRemoteEndpoint c
                        && c.endpoint().ip().equals(ip))) {
                    replacing = periodic;
                }
                h.host.apply(periodic);
                planner.completed(true);
            }
            assertThat(replacing).as("the rotation replaces the stale endpoint of %s", ip).isNotNull();
            assertThat(replacing.steps()).as("and moves the load balancer of %s in the same plan", ip)
                    .anyMatch(step -> step instanceof PlanStep.LoadBalancerStep lb
                            && lb.loadBalancer().backends().contains(ip));
        }
        assertThat(PlanCalculator.plan(desired, h.host.observe(), h.host.ownership(), true).steps()).isEmpty();
    }

    @org.junit.jupiter.api.Test
    void aPlanWithAFailedStepIsFollowedByAFullPlanAndASuccessfulOneByAnIncrementalOne() {
        PolicyHarness h = PolicyHarness.overlay();
        IncrementalPlanner planner = new IncrementalPlanner();
        h.update(null, service(1, false));
        h.state.applyChanges(h.services, h.endpoints);
        planner.plan(h.calculator().calculate(h.state, h.node()), h.host.observe(), h.host.ownership(), true,
                IncrementalPlanner.HostChanges.NONE, false);
        assertThat(planner.lastWasFull()).as("the first plan").isTrue();
        planner.completed(false);

        h.state.applyChanges(h.services, h.endpoints);
        planner.plan(h.calculator().calculate(h.state, h.node()), h.host.observe(), h.host.ownership(), true,
                IncrementalPlanner.HostChanges.NONE, false);
        assertThat(planner.lastWasFull()).as("after a failed step").isTrue();
        planner.completed(true);

        h.state.applyChanges(h.services, h.endpoints);
        planner.plan(h.calculator().calculate(h.state, h.node()), h.host.observe(), h.host.ownership(), true,
                IncrementalPlanner.HostChanges.NONE, true);
        assertThat(planner.lastWasFull()).as("after success, even a periodic plan").isFalse();
    }

    @org.junit.jupiter.api.Test
    void anIncrementalPlanKeepsAnOwnedEndpointThatAnUnownedLoadBalancerStillReferences() {
        PolicyHarness h = PolicyHarness.overlay();
        IncrementalPlanner planner = new IncrementalPlanner();
        EndpointSliceInfo before = sliceOf(1, List.of(21));
        h.update(null, service(1, false));
        h.update(null, before);
        h.state.applyChanges(h.services, h.endpoints);
        h.host.apply(planner.plan(h.calculator().calculate(h.state, h.node()), h.host.observe(),
                h.host.ownership(), true, IncrementalPlanner.HostChanges.NONE, false));
        planner.completed(true);
        ObservedEndpoint owned = h.host.endpointByIp("192.168.2.21").orElseThrow();
        // Another tool's load balancer uses winproxy's remote endpoint.
        h.host.foreignLoadBalancer(new ObservedLoadBalancer("FOREIGN", new io.winproxy.policy.desired.LoadBalancerKey(
                io.winproxy.policy.model.IpFamily.IPV4, "10.0.99.1", io.winproxy.policy.model.Protocol.TCP, 80), 80,
                List.of(owned.id()), List.of("192.168.2.21"), "", 0, 0, 0));

        // The pod goes away: its remote endpoint is no longer desired, and the incremental plan looks at its IP.
        h.update(before, sliceOf(1, List.of(22)));
        h.state.applyChanges(h.services, h.endpoints);
        Plan plan = planner.plan(h.calculator().calculate(h.state, h.node()), h.host.observe(), h.host.ownership(),
                true, IncrementalPlanner.HostChanges.NONE, false);

        assertThat(planner.lastWasFull()).isFalse();
        assertThat(plan.steps()).noneMatch(s -> s instanceof PlanStep.DeleteRemoteEndpoint d
                && d.id().equalsIgnoreCase(owned.id()));
        assertThat(plan.unownedLoadBalancerIds()).contains("FOREIGN");
    }
}
