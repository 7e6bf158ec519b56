package io.winproxy.agent.dataplane;

import static io.winproxy.agent.dataplane.DataplaneWorld.NODES;
import static io.winproxy.agent.dataplane.DataplaneWorld.REMOTE;
import static io.winproxy.agent.dataplane.DataplaneWorld.SYNC_PERIOD;
import static io.winproxy.agent.dataplane.DataplaneWorld.WEB;
import static io.winproxy.agent.dataplane.DataplaneWorld.desired;
import static io.winproxy.agent.dataplane.DataplaneWorld.web;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsCall;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.emulator.HnsObjectKind;
import io.winproxy.hns.emulator.HnsRestart;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.desired.LoadBalancerKey;
import io.winproxy.policy.desired.LoadBalancerKind;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.Protocol;
import io.winproxy.policy.plan.HnsIds;
import io.winproxy.policy.plan.Plan;
import io.winproxy.policy.plan.PlanCalculator;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * HNS failures and restarts, with the emulator's faults (no mocks): a failure that says HNS is unavailable (or an
 * HRESULT winproxy does not know) is never "not found", keeps every piece of state and is retried; a create that finds
 * its own GUID taken adopts the object; objects HNS restores after its restart are re-adopted, never duplicated.
 */
class HnsUnavailabilityTest {
    @TempDir
    Path stateDir;

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final List<String> newIds = new ArrayList<>();
    private HnsEmulator hns;
    private EmulatedHost host;

    @BeforeEach
    void setUp() {
        // HNS 15.5 with the Windows Server 2025 read-back (upper-case IDs, dropped fields).
        hns = HnsEmulator.builder().version(new HnsVersion(15, 5)).build();
        host = DataplaneWorld.overlayHost(hns);
    }

    private HnsDataplane dataplane() {
        return new HnsDataplane(hns, "overlay", OwnershipJournal.open(stateDir), SYNC_PERIOD, nanos::get,
                new DriftBudget(SYNC_PERIOD, 100), () -> {
                    // Marked as winproxy's, as in production: deleting them needs no read of their document.
                    String id = HnsIds.newId(ThreadLocalRandom.current());
                    newIds.add(id);
                    return id;
                });
    }

    private static DesiredState webOnly() {
        return new DesiredState(List.of(web()), List.of(REMOTE), List.of());
    }

    private static ApplyResult sync(HnsDataplane dp, DesiredState desired) {
        Plan plan = PlanCalculator.plan(desired, dp.observe(), dp.journal().ownership(), dp.modifySupported());
        return dp.apply(plan);
    }

    private String networkId() {
        return hns.getNetworkByName("overlay").orElseThrow().id();
    }

    private Set<String> lbIds() {
        return lower(hns.listLoadBalancerIds());
    }

    private Set<String> remoteEndpointIds() {
        return lower(hns.listEndpoints(networkId()).stream().filter(HostComputeEndpoint::isRemote)
                .map(HostComputeEndpoint::id).toList());
    }

    private static Set<String> lower(List<String> ids) {
        return Set.copyOf(ids.stream().map(id -> id.toLowerCase(Locale.ROOT)).toList());
    }

    /** Owned on disk (a restart of winproxy would see this), plus what HNS holds. */
    private void assertConvergedAndOwned(int loadBalancers) {
        OwnershipJournal onDisk = OwnershipJournal.open(stateDir);
        assertThat(lbIds()).hasSize(loadBalancers).isEqualTo(onDisk.ownership().loadBalancerIds());
        assertThat(remoteEndpointIds()).hasSize(1).isEqualTo(onDisk.ownership().remoteEndpointIds());
    }

    @ParameterizedTest(name = "{0} {1} failing with {2}")
    @CsvSource({
            "ENUMERATE, NETWORK, 0x800706BA", "OPEN, NETWORK, 0x80070426", "QUERY, NETWORK, 0x800706BE",
            "ENUMERATE, ENDPOINT, 0x800706BA", "ENUMERATE, LOAD_BALANCER, 0x80070426",
            "OPEN, LOAD_BALANCER, 0x800706BA", "QUERY, LOAD_BALANCER, 0x800706BE",
            "ENUMERATE, LOAD_BALANCER, 0x80FF1234"})
    // A read by ID of a new object failing with a code nobody knows does not fail the observe: the next enumerate
    // settles it (NotFoundCodesTest).
    void aFailingReadDuringObserveKeepsEveryOwnedObjectAndTheNextSyncWritesNothing(HnsCall call, HnsObjectKind kind,
                                                                                    String hresult) {
        HnsDataplane dp = dataplane();
        assertThat(sync(dp, desired()).complete()).isTrue();
        Set<String> lbs = lbIds();
        Map<String, OwnershipJournal.LoadBalancerEntry> owned = dp.journal().loadBalancers();
        // An object winproxy has not read yet, so that the observe opens a load balancer.
        HostComputeLoadBalancer other = hns.createLoadBalancer(HostComputeLoadBalancer.of(
                List.of(host.ensureLocalEndpoint("10.244.1.5").id()), "", "10.96.9.9",
                new LoadBalancerPortMapping(LoadBalancerPortMapping.PROTOCOL_TCP, 80, 80, 0, 0), 0));
        hns.faults().failNext(call, kind, 1, HResults.parse(hresult));

        assertThatThrownBy(dp::observe).isInstanceOfSatisfying(HnsException.class,
                e -> assertThat(e.isNotFound()).isFalse());

        assertThat(dp.journal().loadBalancers()).isEqualTo(owned);
        assertThat(OwnershipJournal.open(stateDir).loadBalancers()).isEqualTo(owned);
        hns.journal().reset();
        ApplyResult next = sync(dp, desired());
        assertThat(next.complete()).isTrue();
        assertThat(next.writes()).isZero();
        assertThat(hns.journal().writes()).isZero();
        assertThat(lbIds()).containsAll(lbs).contains(other.id().toLowerCase(Locale.ROOT)).hasSize(3);
        assertThat(dp.journal().ownsLoadBalancer(other.id())).isFalse();
    }

    @Test
    void aCreateFailingBecauseHnsIsUnavailableIsRetriedWithBackoffUnderTheSameId() {
        HnsDataplane dp = dataplane();
        hns.faults().failNext(HnsCall.CREATE, HnsObjectKind.LOAD_BALANCER, 1, HResults.RPC_S_SERVER_UNAVAILABLE);

        ApplyResult first = sync(dp, desired());
        assertThat(first.failures()).singleElement().satisfies(f -> assertThat(f.hresult())
                .isEqualTo("RPC_S_SERVER_UNAVAILABLE"));
        ApplyResult immediately = sync(dp, desired());
        assertThat(immediately.deferred()).hasSize(1);
        assertThat(immediately.writes()).isZero();

        nanos.addAndGet(Duration.ofSeconds(2).toNanos());
        ApplyResult later = sync(dp, desired());

        assertThat(later.complete()).isTrue();
        assertConvergedAndOwned(2);
        // Three objects, three IDs: the retry used the ID reserved for the failed create.
        assertThat(newIds).hasSize(3);
        assertThat(lbIds()).allMatch(newIds::contains);
    }

    @Test
    void whenHnsStopsDuringAnApplyTheRestOfThePlanWaitsInsteadOfFailingStepByStep() {
        HnsDataplane dp = dataplane();
        List<DesiredLoadBalancer> many = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            many.add(new DesiredLoadBalancer(WEB, LoadBalancerKind.CLUSTER_IP,
                    new LoadBalancerKey(IpFamily.IPV4, "10.96.1." + i, Protocol.TCP, 80), 8080,
                    List.of("10.244.1.5"), "", 0, 0, 0));
        }
        DesiredState desired = new DesiredState(many, List.of(), List.of());
        Plan plan = PlanCalculator.plan(desired, dp.observe(), dp.journal().ownership(), dp.modifySupported());
        hns.faults().outage(Duration.ofMinutes(1), HResults.ERROR_SERVICE_NOT_ACTIVE);
        hns.journal().reset();

        ApplyResult during = dp.apply(plan);

        assertThat(hns.journal().count(HnsCall.CREATE)).isEqualTo(PlanExecutor.MAX_UNAVAILABLE_IN_A_ROW);
        assertThat(during.failures()).hasSize(PlanExecutor.MAX_UNAVAILABLE_IN_A_ROW);
        assertThat(during.deferred()).hasSize(20 - PlanExecutor.MAX_UNAVAILABLE_IN_A_ROW);
        hns.faults().clear();
        nanos.addAndGet(Duration.ofSeconds(2).toNanos());
        assertThat(sync(dp, desired).complete()).isTrue();
        assertThat(lbIds()).hasSize(20).isEqualTo(OwnershipJournal.open(stateDir).ownership().loadBalancerIds());
        assertThat(newIds).hasSize(20);
    }

    @Test
    void aDeleteFailingBecauseHnsIsUnavailableKeepsOwnershipAndIsRetriedButNotFoundMeansGone() {
        HnsDataplane dp = dataplane();
        sync(dp, desired());
        String dnsId = dp.journal().loadBalancers().entrySet().stream()
                .filter(e -> e.getValue().service().startsWith("kube-system/")).findFirst().orElseThrow().getKey();
        hns.faults().failNext(HnsCall.DELETE, HnsObjectKind.LOAD_BALANCER, 1, HResults.RPC_S_SERVER_UNAVAILABLE);

        ApplyResult failed = sync(dp, webOnly());

        assertThat(failed.failures()).singleElement().satisfies(f -> assertThat(f.op())
                .isEqualTo("delete-load-balancer"));
        assertThat(dp.journal().ownsLoadBalancer(dnsId)).isTrue();
        assertThat(lbIds()).contains(dnsId);
        nanos.addAndGet(Duration.ofSeconds(2).toNanos());
        assertThat(sync(dp, webOnly()).deleted()).isEqualTo(1);
        assertConvergedAndOwned(1);

        // Deleted behind winproxy's back between its observe and its delete: ERROR_NOT_FOUND means it is gone.
        Plan plan = PlanCalculator.plan(new DesiredState(List.of(), List.of(), List.of()), dp.observe(),
                dp.journal().ownership(), dp.modifySupported());
        String webId = lbIds().iterator().next();
        hns.deleteLoadBalancer(webId);
        ApplyResult gone = dp.apply(plan);
        assertThat(gone.failures()).isEmpty();
        assertThat(dp.journal().ownsLoadBalancer(webId)).isFalse();
    }

    @Test
    void aCreateWhoseReplyIsLostIsAdoptedByTheNextSyncNotDuplicated() {
        HnsDataplane dp = dataplane();
        // RPC_S_CALL_FAILED: the emulated HNS creates the load balancer, then the call fails.
        hns.faults().failNext(HnsCall.CREATE, HnsObjectKind.LOAD_BALANCER, 1, HResults.RPC_S_CALL_FAILED);

        ApplyResult first = sync(dp, desired());
        assertThat(first.failures()).hasSize(1);
        assertThat(lbIds()).hasSize(2);
        hns.journal().reset();

        ApplyResult next = sync(dp, desired());

        assertThat(next.complete()).isTrue();
        assertThat(next.adopted()).isEqualTo(1);
        assertThat(hns.journal().writes()).isZero();
        assertConvergedAndOwned(2);
    }

    @Test
    void aCreateThatFindsItsIdTakenByAnObjectHnsRestoredAdoptsItInsteadOfFailing() {
        HnsDataplane dp = dataplane();
        sync(dp, desired());
        Set<String> before = lbIds();
        Set<String> endpointsBefore = remoteEndpointIds();
        hns.restartHns(HnsRestart.rehydratingOnCommand());

        // The agent observes the restart and plans the re-creates; HNS rehydrates before they run.
        Plan plan = PlanCalculator.plan(desired(), dp.observe(), dp.journal().ownership(), dp.modifySupported());
        hns.rehydrate();
        hns.journal().reset();
        ApplyResult result = dp.apply(plan);

        assertThat(result.failures()).isEmpty();
        assertThat(result.created()).isZero();
        assertThat(result.adopted()).isEqualTo(3);
        assertThat(hns.journal().count(HnsCall.CREATE)).isEqualTo(3);
        assertThat(hns.journal().failuresByHresult()).isEqualTo(Map.of(HResults.ERROR_ALREADY_EXISTS, 3));
        assertThat(lbIds()).isEqualTo(before);
        assertThat(remoteEndpointIds()).isEqualTo(endpointsBefore);
        // The load balancers were taken on trust: the next sync reads them once and records what they hold.
        ApplyResult verify = sync(dp, desired());
        assertThat(verify.writes()).isZero();
        assertThat(verify.complete()).isTrue();
        assertThat(sync(dp, desired()).writes()).isZero();
        assertConvergedAndOwned(2);
    }

    @Test
    void afterAnHnsRestartTheAgentRecreatesAndWhatHnsRehydratesLaterIsReadoptedAndCleanedUpNeverDuplicated() {
        HnsDataplane dp = dataplane();
        sync(dp, desired());
        Set<String> webAndDns = lbIds();
        hns.restartHns(HnsRestart.rehydratingOnCommand());

        // The agent repairs what is still desired; kube-dns went away during the outage.
        hns.journal().reset();
        ApplyResult repair = sync(dp, webOnly());
        assertThat(repair.created()).isEqualTo(2);
        assertThat(lbIds()).hasSize(1).isSubsetOf(webAndDns);

        assertThat(hns.rehydrate()).isEqualTo(new HnsRestart.Counts(1, 0));
        assertThat(lbIds()).isEqualTo(webAndDns);
        hns.journal().reset();
        ApplyResult cleanup = sync(dp, webOnly());

        assertThat(cleanup.deleted()).isEqualTo(1);
        assertThat(cleanup.created()).isZero();
        // Re-adopted from the journal's memory: no document read, one enumerate per kind, one delete.
        assertThat(hns.journal().count(HnsCall.OPEN, HnsObjectKind.LOAD_BALANCER)).isZero();
        assertThat(hns.journal().writes()).isEqualTo(1);
        assertConvergedAndOwned(1);
        assertThat(sync(dp, webOnly()).writes()).isZero();
        assertThat(newIds).hasSize(3);
    }

    @Test
    void anIdTakenByAnEndpointOfAnotherNetworkIsNotAdoptedAndTheRetryUsesAFreshId() {
        sync(dataplane(), webOnly());
        // The operator moves winproxy to another network with the same state directory: the owned remote endpoint of
        // the old network is not in the new one, so its ID is remembered as vanished and reused for the new create.
        EmulatedHost other = new EmulatedHost(hns, EmulatedHost.NetworkType.OVERLAY, "overlay2", "win-a");
        String otherId = other.syncNetwork(NODES).id();
        other.syncLocalEndpoints(Set.of("10.244.1.5"));
        HnsDataplane moved = new HnsDataplane(hns, "overlay2", OwnershipJournal.open(stateDir), SYNC_PERIOD,
                nanos::get, new DriftBudget(SYNC_PERIOD, 100), () -> UUID.randomUUID().toString());

        sync(moved, webOnly());
        nanos.addAndGet(Duration.ofSeconds(10).toNanos());
        sync(moved, webOnly());
        nanos.addAndGet(Duration.ofSeconds(10).toNanos());
        ApplyResult third = sync(moved, webOnly());

        List<HostComputeEndpoint> remotes = hns.listEndpoints(otherId).stream().filter(HostComputeEndpoint::isRemote)
                .toList();
        assertThat(remotes).as("a remote endpoint of its own in the new network").hasSize(1);
        assertThat(remoteEndpointIds()).as("the old network's endpoint is left alone").hasSize(1)
                .doesNotContain(remotes.get(0).id().toLowerCase(Locale.ROOT));
        assertThat(third.failures()).isEmpty();
    }

    @Test
    void anObjectADeleteFoundGoneThatHnsThenRestoresIsSeenAndDeletedNotLeftListedButUnknown() {
        HnsDataplane dp = dataplane();
        sync(dp, desired());
        Set<String> webAndDns = lbIds();
        // kube-dns goes away: its load balancer is planned for deletion; HNS restarts before the delete runs.
        Plan plan = PlanCalculator.plan(webOnly(), dp.observe(), dp.journal().ownership(), dp.modifySupported());
        hns.restartHns(HnsRestart.rehydratingOnCommand());
        dp.apply(plan);
        // HNS restores what it persisted, the deleted load balancer included, under its old ID.
        hns.rehydrate();
        assertThat(lbIds()).containsAll(webAndDns);

        sync(dp, webOnly());
        sync(dp, webOnly());
        assertThat(lbIds()).as("the restored kube-dns load balancer is winproxy's and is deleted").hasSize(1);
        assertThat(PlanCalculator.plan(webOnly(), dp.observe(), dp.journal().ownership(), dp.modifySupported())
                .steps()).isEmpty();
    }
}
