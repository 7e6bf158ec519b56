package io.winproxy.agent.dataplane;

import static io.winproxy.agent.dataplane.DataplaneWorld.SYNC_PERIOD;
import static io.winproxy.agent.dataplane.DataplaneWorld.dns;
import static io.winproxy.agent.dataplane.DataplaneWorld.web;
import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.hns.HnsClient;
import io.winproxy.hns.emulator.EchoProfile;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import io.winproxy.policy.desired.DesiredRemoteEndpoint;
import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.plan.ObservedEndpoint;
import io.winproxy.policy.plan.ObservedLoadBalancer;
import io.winproxy.policy.plan.ObservedState;
import io.winproxy.policy.plan.PlanCalculator;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The observer's lookup (what a change's plan and apply find their endpoints through) answers as a walk over the
 * observed list would: on a host with local endpoints, owned remote endpoints, an unowned one at an owned one's IP and
 * an unowned load balancer; after the journal changed; and when an owned endpoint drifted.
 */
class ObservedLookupTest {
    @TempDir
    Path stateDir;

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private HnsEmulator hns;
    private String network;
    private final List<String> universe = new ArrayList<>();

    @BeforeEach
    void setUp() {
        hns = HnsEmulator.builder().build();
        hns.setEcho(EchoProfile.VERBATIM);
        DataplaneWorld.overlayHost(hns).syncLocalEndpoints(Set.of("10.244.1.5", "10.244.1.6", "10.244.1.7"));
        network = hns.getNetworkByName("overlay").orElseThrow().id();
        // Not winproxy's: a remote endpoint at an IP winproxy programs too (its provider address is stale, so it is
        // left in place beside winproxy's), and a load balancer.
        hns.createEndpoint(network, HostComputeEndpoint.remote(network, "10.244.2.10", "02-11-0a-f4-02-0a",
                "192.168.1.99"));
        String local = hns.listEndpointIds(network).get(0);
        hns.createLoadBalancer(HostComputeLoadBalancer.of(List.of(local), "", "10.96.0.99",
                new LoadBalancerPortMapping(LoadBalancerPortMapping.PROTOCOL_TCP, 8080, 80, 0, 0), 0));
        for (int i = 1; i <= 7; i++) {
            universe.add("10.244.1." + i);
        }
        for (int i = 5; i <= 35; i++) {
            universe.add("10.244.2." + i);
        }
    }

    private HnsDataplane dataplane(HnsClient client) {
        return new HnsDataplane(client, "overlay", OwnershipJournal.open(stateDir), SYNC_PERIOD, nanos::get,
                new DriftBudget(SYNC_PERIOD, 100), () -> UUID.randomUUID().toString());
    }

    private static DesiredState desired() {
        List<String> backends = new ArrayList<>(List.of("10.244.1.5"));
        List<DesiredRemoteEndpoint> remotes = new ArrayList<>();
        for (int i = 10; i < 30; i++) {
            backends.add("10.244.2." + i);
            remotes.add(new DesiredRemoteEndpoint("10.244.2." + i, "192.168.1.12", null));
        }
        return new DesiredState(List.of(web(backends), dns()), remotes, List.of());
    }

    private static void sync(HnsDataplane dp) {
        ObservedState observed = dp.observe();
        assertThat(dp.apply(PlanCalculator.plan(desired(), observed, dp.journal().ownership(), true)).failures())
                .isEmpty();
    }

    /** The lookup's answer for {@code ips} is the walk's: each endpoint once, two that share an IP in list order. */
    private static void assertAnswersAsTheWalk(ObservedState state, Set<String> ips) {
        List<ObservedEndpoint> looked = state.lookup().endpointsHolding(ips);
        List<ObservedEndpoint> walked = ObservedState.holding(state.endpoints(), ips);
        assertThat(looked).as("for %s", ips).containsExactlyInAnyOrderElementsOf(walked);
        for (String ip : ips) {
            assertThat(looked.stream().filter(e -> e.ips().contains(ip)).toList()).as("the order at %s", ip)
                    .containsExactlyElementsOf(walked.stream().filter(e -> e.ips().contains(ip)).toList());
        }
    }

    private void assertAnswersAsTheWalk(ObservedState state) {
        Random random = new Random(7);
        for (String ip : universe) {
            assertAnswersAsTheWalk(state, Set.of(ip));
        }
        for (int round = 0; round < 50; round++) {
            Set<String> ips = new HashSet<>();
            for (int n = random.nextInt(8); n >= 0; n--) {
                ips.add(universe.get(random.nextInt(universe.size())));
            }
            assertAnswersAsTheWalk(state, ips);
        }
        assertAnswersAsTheWalk(state, new HashSet<>(universe));
        assertAnswersAsTheWalk(state, Set.of());
    }

    @Test
    void theLookupAnswersAsTheWalkOnAProgrammedHost() {
        HnsDataplane dp = dataplane(hns);
        sync(dp);

        ObservedState state = dp.observe();

        assertThat(state.endpoints().stream().filter(e -> e.ips().contains("10.244.2.10")))
                .as("an unowned and an owned endpoint share 10.244.2.10").hasSize(2);
        assertAnswersAsTheWalk(state);
        List<ObservedLoadBalancer> read = state.lookup().loadBalancersRead();
        assertThat(read).as("the unowned load balancer, read from its document; not the two journaled ones")
                .singleElement().satisfies(lb -> assertThat(dp.journal().ownsLoadBalancer(lb.id())).isFalse());
        assertThat(state.loadBalancers()).hasSize(3);
    }

    @Test
    void theLookupAnswersForTheObservedStateAfterTheJournalChanged() {
        HnsDataplane dp = dataplane(hns);
        sync(dp);
        ObservedState state = dp.observe();

        // What the apply's reservations do before any create: the journal holds endpoints the host does not.
        dp.journal().recordRemoteEndpoint("aaaaaaaa-0000-0000-0000-000000000001", "10.244.2.30");
        dp.journal().recordRemoteEndpoint("aaaaaaaa-0000-0000-0000-000000000002", "10.244.2.11");
        String owned = dp.journal().remoteEndpoints().keySet().iterator().next();
        dp.journal().forgetRemoteEndpoint(owned);

        assertThat(state.lookup().endpointsHolding(Set.of("10.244.2.30"))).isEmpty();
        assertThat(state.lookup().endpointsHolding(Set.of("10.244.2.11"))).hasSize(1);
        assertAnswersAsTheWalk(state);
    }

    @Test
    void theLookupAnswersWithTheEndpointAsReReadWhenAnOwnedOneDrifted() {
        HnsDataplane first = dataplane(hns);
        sync(first);
        String drifted = first.journal().remoteEndpoints().entrySet().stream()
                .filter(e -> e.getValue().ip().equals("10.244.2.12")).findFirst().orElseThrow().getKey();
        AtomicReference<String> moveTo = new AtomicReference<>();
        HnsClient driftingHost = new ForwardingHnsClient(hns) {
            @Override
            public Optional<HostComputeEndpoint> getEndpoint(String id) {
                Optional<HostComputeEndpoint> doc = super.getEndpoint(id);
                if (moveTo.get() == null || !id.toLowerCase(Locale.ROOT).equals(drifted)) {
                    return doc;
                }
                return doc.map(d -> HostComputeEndpoint.remote(network, moveTo.get(), "02-11-0a-f4-02-0c",
                        "192.168.1.12").withId(d.id()));
            }
        };
        HnsDataplane dp = dataplane(driftingHost);
        sync(dp);
        dp.observe(false);
        moveTo.set("10.244.2.33");
        nanos.addAndGet(SYNC_PERIOD.toNanos());

        ObservedState state = dp.observe(true);

        assertThat(state.endpoints()).as("the endpoint as re-read")
                .anySatisfy(e -> assertThat(e.ips()).containsExactly("10.244.2.33"));
        assertThat(state.lookup().endpointsHolding(Set.of("10.244.2.33"))).extracting(ObservedEndpoint::id)
                .containsExactly(drifted);
        assertThat(state.lookup().endpointsHolding(Set.of("10.244.2.12"))).isEmpty();
        assertAnswersAsTheWalk(state);
    }
}
