package io.winproxy.policy.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.DesiredRemoteEndpoint;
import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.desired.LoadBalancerKey;
import io.winproxy.policy.desired.LoadBalancerKind;
import io.winproxy.policy.desired.NetworkType;
import io.winproxy.policy.desired.NodeNetwork;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.Protocol;
import io.winproxy.policy.model.ServicePortName;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The plan rules: adoption, modify/replace/create, stale deletes, remote endpoint lifecycle, step order. */
class PlanCalculatorTest {
    static final ServicePortName WEB = new ServicePortName("default", "web", "http", Protocol.TCP);
    static final LoadBalancerKey KEY = new LoadBalancerKey(IpFamily.IPV4, "10.96.0.10", Protocol.TCP, 80);
    static final DesiredLoadBalancer LB = new DesiredLoadBalancer(WEB, LoadBalancerKind.CLUSTER_IP, KEY, 8080,
            List.of("10.244.0.5", "10.244.1.5"), "10.244.0.2", 0, 0, 0);
    static final DesiredRemoteEndpoint REMOTE = new DesiredRemoteEndpoint("10.244.1.5", "10.0.0.2",
            "02-11-0a-f4-01-05");
    static final ObservedEndpoint LOCAL_EP = ObservedEndpoint.local("ep-local", "10.244.0.5");
    static final ObservedEndpoint REMOTE_EP = ObservedEndpoint.remote("ep-remote", "10.244.1.5", "10.0.0.2");

    static DesiredState desired(DesiredLoadBalancer... lbs) {
        return new DesiredState(List.of(lbs), List.of(REMOTE), List.of());
    }

    /** The load balancer as winproxy wrote it from {@code lb}: its document and the journal's fingerprint. */
    static ObservedLoadBalancer observed(String id, DesiredLoadBalancer lb) {
        return new ObservedLoadBalancer(id, lb.key(), lb.internalPort(), List.of("ep-local", "ep-remote"),
                lb.backends(), lb.sourceVip(), lb.flags(), lb.portMappingFlags(), lb.distributionType(),
                fingerprint(lb), true);
    }

    /** The fingerprint of {@code lb} with its backends on ep-local and ep-remote. */
    static String fingerprint(DesiredLoadBalancer lb) {
        return Fingerprints.loadBalancer(lb, lb.backends().stream()
                .map(ip -> ip.equals("10.244.0.5") ? "ep-local" : "ep-remote").toList());
    }

    static ObservedState host(ObservedLoadBalancer... lbs) {
        return new ObservedState(List.of(LOCAL_EP, REMOTE_EP), List.of(lbs));
    }

    static Ownership owning(Set<String> lbs, Set<String> eps) {
        return new Ownership(lbs, eps);
    }

    @Test
    void aConvergedHostNeedsNoSteps() {
        Plan plan = PlanCalculator.plan(desired(LB), host(observed("lb-1", LB)),
                owning(Set.of("lb-1"), Set.of("ep-remote")), false);
        assertThat(plan.steps()).isEmpty();
        assertThat(plan.unownedLoadBalancerIds()).isEmpty();
    }

    @Test
    void afterARestartWithoutJournalIdenticalObjectsAreAdoptedWithoutWrites() {
        Plan plan = PlanCalculator.plan(desired(LB), host(observed("lb-1", LB)), Ownership.NONE, false);
        assertThat(plan.steps()).containsExactly(new PlanStep.AdoptRemoteEndpoint("ep-remote", REMOTE),
                new PlanStep.AdoptLoadBalancer("lb-1", LB, fingerprint(LB)));
        assertThat(plan.isEmpty()).isTrue();
    }

    @Test
    void anEmptyHostGetsEndpointsFirstThenLoadBalancers() {
        Plan plan = PlanCalculator.plan(desired(LB), new ObservedState(List.of(LOCAL_EP), List.of()), Ownership.NONE,
                false);
        assertThat(plan.steps()).containsExactly(new PlanStep.CreateRemoteEndpoint(REMOTE),
                new PlanStep.CreateLoadBalancer(LB));
    }

    @Test
    void anOwnedLoadBalancerWithOtherContentIsModifiedWhenSupportedElseReplaced() {
        DesiredLoadBalancer changed = LB.withBackends(List.of("10.244.0.5"));
        Ownership owned = owning(Set.of("lb-1"), Set.of("ep-remote"));
        assertThat(PlanCalculator.plan(desired(changed), host(observed("lb-1", LB)), owned, true).steps())
                .contains(new PlanStep.ModifyLoadBalancer("lb-1", changed));
        assertThat(PlanCalculator.plan(desired(changed), host(observed("lb-1", LB)), owned, false).steps())
                .contains(new PlanStep.ReplaceLoadBalancer("lb-1", changed, false));
    }

    @Test
    void flagsSourceVipAndDistributionArePartOfIdentity() {
        Ownership owned = owning(Set.of("lb-1"), Set.of("ep-remote"));
        for (DesiredLoadBalancer other : List.of(LB.withFlags(1, 0), LB.withFlags(0, 16),
                new DesiredLoadBalancer(WEB, LoadBalancerKind.CLUSTER_IP, KEY, 8080, LB.backends(), "10.0.0.1", 0, 0,
                        0),
                new DesiredLoadBalancer(WEB, LoadBalancerKind.CLUSTER_IP, KEY, 8080, LB.backends(), LB.sourceVip(),
                        0, 0, 2),
                new DesiredLoadBalancer(WEB, LoadBalancerKind.CLUSTER_IP, KEY, 9090, LB.backends(), LB.sourceVip(),
                        0, 0, 0))) {
            assertThat(PlanCalculator.plan(desired(other), host(observed("lb-1", LB)), owned, true).steps())
                    .as(other.toString()).containsExactly(new PlanStep.ModifyLoadBalancer("lb-1", other));
        }
    }

    @Test
    void anUnownedLoadBalancerCollidingOnTheKeyIsReplacedAndMarkedUnowned() {
        DesiredLoadBalancer changed = LB.withBackends(List.of("10.244.0.5"));
        Plan plan = PlanCalculator.plan(desired(changed), host(observed("foreign", LB)), Ownership.NONE, true);
        assertThat(plan.steps()).contains(new PlanStep.ReplaceLoadBalancer("foreign", changed, true));
    }

    @Test
    void staleOwnedLoadBalancersAreDeletedAndUnownedOnesOnlyReported() {
        DesiredLoadBalancer gone = new DesiredLoadBalancer(WEB, LoadBalancerKind.EXTERNAL_IP,
                new LoadBalancerKey(IpFamily.IPV4, "192.0.2.1", Protocol.TCP, 80), 8080, LB.backends(), "", 0, 16, 0);
        ObservedLoadBalancer weird = new ObservedLoadBalancer("weird", null, 0, List.of(), List.of(), "", 0, 0, 0);
        ObservedLoadBalancer weirdOwned = new ObservedLoadBalancer("weird-owned", null, 0, List.of(), List.of(), "",
                0, 0, 0);
        Plan plan = PlanCalculator.plan(desired(LB), host(observed("lb-1", LB), observed("old", gone),
                observed("foreign", gone.withFlags(1, 16)), weird, weirdOwned),
                owning(Set.of("lb-1", "old", "weird-owned"), Set.of("ep-remote")), false);

        assertThat(plan.steps()).containsExactly(
                new PlanStep.DeleteLoadBalancer("old", "no service needs 192.0.2.1:80/TCP"),
                new PlanStep.DeleteLoadBalancer("weird-owned", "not expressible as a service load balancer"));
        assertThat(plan.unownedLoadBalancerIds()).containsExactly("foreign", "weird");
    }

    @Test
    void objectsWithWinproxysIdMarkThatTheJournalLostAreDeletedWhenNothingNeedsThemAndAdoptedWhenSomethingDoes() {
        DesiredLoadBalancer gone = new DesiredLoadBalancer(WEB, LoadBalancerKind.EXTERNAL_IP,
                new LoadBalancerKey(IpFamily.IPV4, "192.0.2.1", Protocol.TCP, 80), 8080, LB.backends(), "", 0, 16, 0);
        String markedLb = HnsIds.newId(new java.util.Random(1)).toUpperCase();
        String markedStale = HnsIds.newId(new java.util.Random(2));
        String markedNeeded = HnsIds.newId(new java.util.Random(3));
        ObservedEndpoint staleEp = ObservedEndpoint.remote(markedStale, "10.244.1.9", "10.0.0.2");
        ObservedEndpoint neededEp = ObservedEndpoint.remote(markedNeeded, "10.244.1.5", "10.0.0.2");
        ObservedState state = new ObservedState(List.of(LOCAL_EP, staleEp, neededEp),
                List.of(observed("lb-1", LB), observed(markedLb, gone), observed("foreign", gone.withFlags(1, 16))));

        Plan plan = PlanCalculator.plan(desired(LB), state, owning(Set.of("lb-1"), Set.of()), false);

        assertThat(plan.steps()).contains(new PlanStep.AdoptRemoteEndpoint(markedNeeded, REMOTE),
                new PlanStep.DeleteLoadBalancer(markedLb, "no service needs 192.0.2.1:80/TCP"),
                new PlanStep.DeleteRemoteEndpoint(markedStale, "10.244.1.9"));
        assertThat(plan.unownedLoadBalancerIds()).containsExactly("foreign");
    }

    @Test
    void winproxysIdsCarryTheMarkAndAreOtherwiseRandomVersion4Guids() {
        String id = HnsIds.newId(new java.util.Random(7));
        assertThat(id).matches("77696e70-7278-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
        assertThat(java.util.UUID.fromString(id).version()).isEqualTo(4);
        assertThat(HnsIds.isWinproxys(id.toUpperCase())).isTrue();
        assertThat(HnsIds.isWinproxys(java.util.UUID.randomUUID().toString())).isFalse();
        assertThat(HnsIds.newId(new java.util.Random(8))).isNotEqualTo(id);
    }

    @Test
    void duplicateLoadBalancersWithOneKeyKeepTheBestMatchAndDeleteOwnedExtras() {
        DesiredLoadBalancer stale = LB.withBackends(List.of("10.244.0.5"));
        Plan plan = PlanCalculator.plan(desired(LB), host(observed("dup-owned", stale), observed("lb-1", LB),
                observed("dup-foreign", stale)), owning(Set.of("lb-1", "dup-owned"), Set.of("ep-remote")), false);

        assertThat(plan.steps()).containsExactly(
                new PlanStep.DeleteLoadBalancer("dup-owned", "duplicate of 10.96.0.10:80/TCP"));
        assertThat(plan.unownedLoadBalancerIds()).containsExactly("dup-foreign");
    }

    @Test
    void aLoadBalancerReferencingAMissingEndpointIsRepaired() {
        ObservedLoadBalancer broken = new ObservedLoadBalancer("lb-1", KEY, 8080, List.of("ep-local", "ep-gone"),
                List.of("10.244.0.5"), LB.sourceVip(), 0, 0, 0);
        Plan plan = PlanCalculator.plan(desired(LB), host(broken), owning(Set.of("lb-1"), Set.of("ep-remote")),
                false);
        assertThat(plan.steps()).containsExactly(new PlanStep.ReplaceLoadBalancer("lb-1", LB, false));
    }

    @Test
    void onlyOwnedUnreferencedRemoteEndpointsAreDeleted() {
        ObservedEndpoint ownedStale = ObservedEndpoint.remote("ep-stale", "10.244.1.9", "10.0.0.2");
        ObservedEndpoint foreignStale = ObservedEndpoint.remote("ep-foreign", "10.244.1.8", "10.0.0.2");
        ObservedEndpoint ownedButUsed = ObservedEndpoint.remote("ep-used", "10.244.1.7", "10.0.0.2");
        ObservedEndpoint localStale = ObservedEndpoint.local("ep-local-2", "10.244.0.9");
        ObservedLoadBalancer foreignLb = new ObservedLoadBalancer("foreign",
                new LoadBalancerKey(IpFamily.IPV4, "192.0.2.9", Protocol.TCP, 80), 80, List.of("ep-used"),
                List.of("10.244.1.7"), "", 0, 16, 0);
        ObservedState state = new ObservedState(List.of(LOCAL_EP, REMOTE_EP, ownedStale, foreignStale, ownedButUsed,
                localStale), List.of(observed("lb-1", LB), foreignLb));
        Plan plan = PlanCalculator.plan(desired(LB), state,
                owning(Set.of("lb-1"), Set.of("ep-remote", "ep-stale", "ep-used", "ep-local-2")), false);

        assertThat(plan.steps()).containsExactly(new PlanStep.DeleteRemoteEndpoint("ep-stale", "10.244.1.9"));
        assertThat(plan.unownedLoadBalancerIds()).containsExactly("foreign");
    }

    @Test
    void stepsAreOrderedEndpointsLoadBalancersStaleDeletesEndpointDeletes() {
        DesiredLoadBalancer other = new DesiredLoadBalancer(WEB, LoadBalancerKind.NODE_PORT,
                new LoadBalancerKey(IpFamily.IPV4, "", Protocol.TCP, 30080), 8080, List.of("10.244.1.5"), "", 0, 18,
                0);
        ObservedEndpoint stale = ObservedEndpoint.remote("ep-stale", "10.244.1.9", "10.0.0.2");
        ObservedState state = new ObservedState(List.of(LOCAL_EP, stale), List.of(new ObservedLoadBalancer("old",
                new LoadBalancerKey(IpFamily.IPV4, "10.96.0.99", Protocol.TCP, 80), 80, List.of("ep-stale"),
                List.of("10.244.1.9"), "", 0, 0, 0)));
        Plan plan = PlanCalculator.plan(desired(LB, other), state, owning(Set.of("old"), Set.of("ep-stale")), false);
        assertThat(plan.steps()).extracting(PlanStep::op).containsExactly("create-remote-endpoint",
                "create-load-balancer", "create-load-balancer", "delete-load-balancer", "delete-remote-endpoint");
    }

    @Test
    void hnsLoadBalancersAreTranslatedToPolicyVocabulary() {
        Map<String, ObservedEndpoint> eps = Map.of("a", ObservedEndpoint.local("a", "10.244.0.5", "fd00::5"),
                "b", ObservedEndpoint.remote("b", "10.244.1.5", "10.0.0.2"));
        ObservedLoadBalancer v6 = ObservedLoadBalancer.fromHns("lb", List.of("fd00::10"),
                List.of(new ObservedLoadBalancer.PortMapping(6, 8080, 80, 0, 2)), 3, "", List.of("a", "b", "c"), eps);
        assertThat(v6.key()).isEqualTo(new LoadBalancerKey(IpFamily.IPV6, "fd00::10", Protocol.TCP, 80));
        assertThat(v6.backendIps()).containsExactly("fd00::5");
        assertThat(v6.distributionType()).isEqualTo(2);
        assertThat(v6.dsr()).isTrue();

        ObservedLoadBalancer nodePort = ObservedLoadBalancer.fromHns("np", List.of(),
                List.of(new ObservedLoadBalancer.PortMapping(17, 53, 30053, 18, 0)), 0, "10.0.0.1", List.of("a", "b"),
                eps);
        assertThat(nodePort.key().toString()).isEqualTo("*:30053/UDP");
        assertThat(nodePort.backendIps()).containsExactly("10.244.0.5", "10.244.1.5");

        assertThat(ObservedLoadBalancer.fromHns("x", List.of("10.96.0.1"),
                List.of(new ObservedLoadBalancer.PortMapping(6, 1, 1, 0, 0),
                        new ObservedLoadBalancer.PortMapping(6, 2, 2, 0, 0)), 0, "", List.of(), eps).key()).isNull();
        assertThat(ObservedLoadBalancer.fromHns("y", List.of("10.96.0.1"),
                List.of(new ObservedLoadBalancer.PortMapping(132, 1, 1, 0, 0)), 0, "", List.of(), eps).key()).isNull();
        assertThat(ObservedLoadBalancer.fromHns("z", List.of(), List.of(), 0, "", List.of(), eps).key()).isNull();
    }

    @Test
    void aDesiredStateBecomesASyntheticHostWhoseLoadBalancersResolveTheirBackends() {
        NodeNetwork node = NodeNetwork.builder(NetworkType.OVERLAY, "n").localEndpoint("10.244.0.5").build();
        ObservedState synthetic = ObservedState.fromDesired(desired(LB), node);
        assertThat(synthetic.endpoints()).extracting(ObservedEndpoint::id).containsExactly("local-1", "remote-1");
        assertThat(synthetic.loadBalancers()).singleElement().satisfies(lb -> {
            assertThat(lb.id()).isEqualTo("lb-1");
            assertThat(lb.endpointIds()).containsExactly("local-1", "remote-1");
            assertThat(PlanCalculator.identical(lb, LB)).isTrue();
        });
        assertThat(PlanCalculator.plan(desired(LB), synthetic, Ownership.NONE, false).isEmpty()).isTrue();
    }

    static final DesiredRemoteEndpoint MOVED = new DesiredRemoteEndpoint("10.244.1.5", "10.0.0.9",
            "02-11-0a-f4-01-05");

    static DesiredState movedDesired(DesiredLoadBalancer lb) {
        return new DesiredState(List.of(lb), List.of(MOVED), List.of());
    }

    @Test
    void anOwnedRemoteEndpointWhosePaChangedIsRecreatedTheLoadBalancerMovedThenTheOldOneDeleted() {
        Ownership owned = owning(Set.of("lb-1"), Set.of("ep-remote"));
        assertThat(PlanCalculator.plan(movedDesired(LB), host(observed("lb-1", LB)), owned, true).steps())
                .containsExactly(new PlanStep.CreateRemoteEndpoint(MOVED), new PlanStep.ModifyLoadBalancer("lb-1", LB),
                        new PlanStep.DeleteRemoteEndpoint("ep-remote", "10.244.1.5"));
        assertThat(PlanCalculator.plan(movedDesired(LB), host(observed("lb-1", LB)), owned, false).steps())
                .containsExactly(new PlanStep.CreateRemoteEndpoint(MOVED),
                        new PlanStep.ReplaceLoadBalancer("lb-1", LB, false),
                        new PlanStep.DeleteRemoteEndpoint("ep-remote", "10.244.1.5"));
    }

    @Test
    void anUnownedRemoteEndpointWithAStalePaIsLeftButTheLoadBalancerMovesToANewOwnedOne() {
        Plan plan = PlanCalculator.plan(movedDesired(LB), host(observed("lb-1", LB)), owning(Set.of("lb-1"),
                Set.of()), true);
        assertThat(plan.steps()).containsExactly(new PlanStep.CreateRemoteEndpoint(MOVED),
                new PlanStep.ModifyLoadBalancer("lb-1", LB));
    }

    @Test
    void anUnownedRemoteEndpointAtALocalEndpointsIpIsDeletedWhoeverMadeItAndTheLoadBalancerUsesTheLocalOne() {
        // A leftover of upstream kube-proxy at this node's pod IP (kubernetes PR #138000).
        ObservedEndpoint shadow = ObservedEndpoint.remote("ep-shadow", "10.244.0.5", "10.0.0.2");
        ObservedState host = new ObservedState(List.of(LOCAL_EP, REMOTE_EP, shadow), List.of());
        Plan plan = PlanCalculator.plan(desired(LB), host, owning(Set.of(), Set.of("ep-remote")), true);

        assertThat(plan.steps()).containsExactly(new PlanStep.CreateLoadBalancer(LB),
                new PlanStep.DeleteRemoteEndpoint("ep-shadow", "10.244.0.5"));
        // Unowned remote endpoints at other IPs stay untouched.
        ObservedEndpoint foreign = ObservedEndpoint.remote("ep-foreign", "10.244.7.7", "10.0.0.7");
        assertThat(PlanCalculator.plan(desired(LB), new ObservedState(List.of(LOCAL_EP, REMOTE_EP, foreign),
                List.of()), owning(Set.of(), Set.of("ep-remote")), true).steps())
                .containsExactly(new PlanStep.CreateLoadBalancer(LB));
    }

    @Test
    void besideAStaleEndpointAnUnownedOneWithTheRightPaDoesNotCountSoAnOwnedOneIsCreated() {
        ObservedEndpoint rightButUnowned = ObservedEndpoint.remote("ep-right", "10.244.1.5", "10.0.0.9");
        ObservedState host = new ObservedState(List.of(LOCAL_EP, REMOTE_EP, rightButUnowned),
                List.of(observed("lb-1", LB)));
        assertThat(PlanCalculator.plan(movedDesired(LB), host, owning(Set.of("lb-1"), Set.of()), true).steps())
                .containsExactly(new PlanStep.CreateRemoteEndpoint(MOVED), new PlanStep.ModifyLoadBalancer("lb-1", LB));
    }

    @Test
    void onceMovedTheHostIsConvergedEvenWithTheUnownedStaleEndpointLeftInPlace() {
        ObservedEndpoint moved = ObservedEndpoint.remote("ep-new", "10.244.1.5", "10.0.0.9");
        ObservedLoadBalancer lb = new ObservedLoadBalancer("lb-1", KEY, 8080, List.of("ep-local", "ep-new"),
                LB.backends(), LB.sourceVip(), 0, 0, 0, Fingerprints.loadBalancer(LB, List.of("ep-local", "ep-new")),
                true);
        ObservedState host = new ObservedState(List.of(LOCAL_EP, REMOTE_EP, moved), List.of(lb));
        assertThat(PlanCalculator.plan(movedDesired(LB), host, owning(Set.of("lb-1"), Set.of("ep-new")), true)
                .steps()).isEmpty();
    }

    @Test
    void anOwnedStaleEndpointAnUnownedLoadBalancerStillReferencesIsNotDeleted() {
        LoadBalancerKey otherKey = new LoadBalancerKey(IpFamily.IPV4, "10.96.0.11", Protocol.TCP, 80);
        ObservedLoadBalancer foreign = new ObservedLoadBalancer("lb-foreign", otherKey, 8080, List.of("ep-remote"),
                List.of("10.244.1.5"), "", 0, 0, 0);
        Plan plan = PlanCalculator.plan(movedDesired(LB), host(observed("lb-1", LB), foreign),
                owning(Set.of("lb-1"), Set.of("ep-remote")), true);
        assertThat(plan.steps()).containsExactly(new PlanStep.CreateRemoteEndpoint(MOVED),
                new PlanStep.ModifyLoadBalancer("lb-1", LB));
        assertThat(plan.unownedLoadBalancerIds()).containsExactly("lb-foreign");
    }

    @Test
    void withoutADesiredProviderAddressAsOnL2bridgeNoEndpointIsStale() {
        DesiredRemoteEndpoint bridged = new DesiredRemoteEndpoint("10.244.1.5", "", "02-11-0a-f4-01-05");
        Plan plan = PlanCalculator.plan(new DesiredState(List.of(LB), List.of(bridged), List.of()),
                host(observed("lb-1", LB)), owning(Set.of("lb-1"), Set.of("ep-remote")), true);
        assertThat(plan.steps()).isEmpty();
    }

    @Test
    void anOwnedLoadBalancerKnownOnlyFromTheJournalIsUpToDateWhenItsFingerprintMatches() {
        ObservedLoadBalancer journaled = ObservedLoadBalancer.journaled("lb-1", KEY, fingerprint(LB));
        Plan plan = PlanCalculator.plan(desired(LB), host(journaled), owning(Set.of("lb-1"), Set.of("ep-remote")),
                true);
        assertThat(plan.steps()).isEmpty();
    }

    @Test
    void anOwnedLoadBalancerWhoseFingerprintDiffersIsModifiedWithoutReadingIt() {
        ObservedLoadBalancer journaled = ObservedLoadBalancer.journaled("lb-1", KEY, "0123456789abcdef");
        Plan plan = PlanCalculator.plan(desired(LB), host(journaled), owning(Set.of("lb-1"), Set.of("ep-remote")),
                true);
        assertThat(plan.steps()).containsExactly(new PlanStep.ModifyLoadBalancer("lb-1", LB));
    }

    @Test
    void aBackendWhoseEndpointIsCreatedInThisPlanChangesTheFingerprint() {
        // The journal says lb-1 was written with the remote backend unresolved; the endpoint is created now.
        String writtenWithout = Fingerprints.loadBalancer(LB, List.of("ep-local", ""));
        ObservedLoadBalancer journaled = ObservedLoadBalancer.journaled("lb-1", KEY, writtenWithout);
        Plan plan = PlanCalculator.plan(desired(LB), new ObservedState(List.of(LOCAL_EP), List.of(journaled)),
                owning(Set.of("lb-1"), Set.of()), true);
        assertThat(plan.steps()).containsExactly(new PlanStep.CreateRemoteEndpoint(REMOTE),
                new PlanStep.ModifyLoadBalancer("lb-1", LB));
    }

    @Test
    void contentDriftSeenInAReadDocumentOfAnOwnedLoadBalancerIsRepaired() {
        ObservedLoadBalancer drifted = new ObservedLoadBalancer("lb-1", KEY, 8080, List.of("ep-local"),
                List.of("10.244.0.5"), LB.sourceVip(), 0, 0, 0, fingerprint(LB), true);
        Plan plan = PlanCalculator.plan(desired(LB), host(drifted), owning(Set.of("lb-1"), Set.of("ep-remote")),
                false);
        assertThat(plan.steps()).containsExactly(new PlanStep.ReplaceLoadBalancer("lb-1", LB, false));
    }

    @Test
    void fieldsHnsOmitsOnReadBackAreNotDifferences() {
        DesiredLoadBalancer full = new DesiredLoadBalancer(WEB, LoadBalancerKind.NODE_PORT,
                new LoadBalancerKey(IpFamily.IPV4, "", Protocol.TCP, 30080), 8080, LB.backends(), LB.sourceVip(), 1,
                16 | 1, 2);
        // HNS returned no DistributionType, dropped port-mapping flag 16 and the source VIP.
        ObservedLoadBalancer echoed = new ObservedLoadBalancer("lb-1", full.key(), 8080,
                List.of("EP-LOCAL", "EP-REMOTE"), full.backends(), "", 1, 1, 0);
        Plan plan = PlanCalculator.plan(desired(full), host(echoed), Ownership.NONE, true);
        assertThat(plan.steps()).hasSize(2).allMatch(s -> s instanceof PlanStep.AdoptLoadBalancer
                || s instanceof PlanStep.AdoptRemoteEndpoint);
        assertThat(plan.isEmpty()).isTrue();
    }

    @Test
    void aFieldHnsReportsThatIsNotWantedIsADifference() {
        ObservedLoadBalancer withIlb = new ObservedLoadBalancer("lb-1", KEY, 8080, List.of("ep-local", "ep-remote"),
                LB.backends(), LB.sourceVip(), 0, 1, 0);
        Plan plan = PlanCalculator.plan(desired(LB), host(withIlb), owning(Set.of(), Set.of("ep-remote")), true);
        assertThat(plan.steps()).containsExactly(new PlanStep.ReplaceLoadBalancer("lb-1", LB, true));
    }

    @Test
    void anUnownedRemoteEndpointWithTheDesiredIpAndAnUnreturnedProviderAddressIsAdopted() {
        ObservedEndpoint noPa = ObservedEndpoint.remote("ep-remote", "10.244.1.5", "");
        Plan plan = PlanCalculator.plan(desired(), new ObservedState(List.of(LOCAL_EP, noPa), List.of()),
                Ownership.NONE, true);
        assertThat(plan.steps()).containsExactly(new PlanStep.AdoptRemoteEndpoint("ep-remote", REMOTE));
    }

    @Test
    void anOwnedRemoteEndpointWrittenWithAnotherMacIsStale() {
        ObservedEndpoint oldMac = new ObservedEndpoint("ep-remote", List.of("10.244.1.5"), true, "10.0.0.2",
                "02-11-00-00-00-01");
        Plan plan = PlanCalculator.plan(desired(), new ObservedState(List.of(LOCAL_EP, oldMac), List.of()),
                owning(Set.of(), Set.of("ep-remote")), true);
        assertThat(plan.steps()).containsExactly(new PlanStep.CreateRemoteEndpoint(REMOTE),
                new PlanStep.DeleteRemoteEndpoint("ep-remote", "10.244.1.5"));
    }

    @Test
    void ownershipIgnoresTheLetterCaseOfIds() {
        assertThat(owning(Set.of("lb-1"), Set.of("ep-remote")).ownsLoadBalancer("LB-1")).isTrue();
        assertThat(owning(Set.of("lb-1"), Set.of("ep-remote")).ownsRemoteEndpoint("EP-Remote")).isTrue();
    }
}
