package io.winproxy.agent.dataplane;

import static io.winproxy.agent.dataplane.DataplaneWorld.NODES;
import static io.winproxy.agent.dataplane.DataplaneWorld.REMOTE;
import static io.winproxy.agent.dataplane.DataplaneWorld.SYNC_PERIOD;
import static io.winproxy.agent.dataplane.DataplaneWorld.WEB;
import static io.winproxy.agent.dataplane.DataplaneWorld.desired;
import static io.winproxy.agent.dataplane.DataplaneWorld.dns;
import static io.winproxy.agent.dataplane.DataplaneWorld.web;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsCapabilities;
import io.winproxy.hns.HnsClient;
import io.winproxy.hns.HnsFeatures;
import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.emulator.EchoProfile;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsCall;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.emulator.HnsObjectKind;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.DesiredRemoteEndpoint;
import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.desired.LoadBalancerKey;
import io.winproxy.policy.desired.LoadBalancerKind;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.Protocol;
import io.winproxy.policy.plan.Plan;
import io.winproxy.policy.plan.PlanCalculator;
import io.winproxy.policy.plan.PlanStep;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class HnsDataplaneTest {
    @TempDir
    Path stateDir;

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private HnsEmulator hns;
    private EmulatedHost host;

    @BeforeEach
    void setUp() {
        // HNS 15.5: modify works; the default echo profile (Windows Server 2025) drops the provider-address policy
        // and port-mapping flag 16 on read-back and returns upper-case IDs.
        hns = HnsEmulator.builder().version(MODIFY_WORKS).build();
        host = DataplaneWorld.overlayHost(hns);
    }

    private static final HnsVersion MODIFY_WORKS = new HnsVersion(15, 5);

    /** Every owned object is re-read for drift once per sync period. */
    private HnsDataplane dataplane() {
        return new HnsDataplane(hns, "overlay", OwnershipJournal.open(stateDir), SYNC_PERIOD, nanos::get,
                new DriftBudget(SYNC_PERIOD, 100), () -> UUID.randomUUID().toString());
    }

    private static String lower(String id) {
        return id.toLowerCase(Locale.ROOT);
    }

    private void loseJournal() throws IOException {
        Files.deleteIfExists(stateDir.resolve(OwnershipJournal.FILE_NAME));
        Files.deleteIfExists(stateDir.resolve(OwnershipJournal.LOG_NAME));
    }

    private static ApplyResult sync(HnsDataplane dp, DesiredState desired) {
        return sync(dp, desired, false);
    }

    /** One sync; {@code periodic} spends the drift budget as the periodic resync does. */
    private static ApplyResult sync(HnsDataplane dp, DesiredState desired, boolean periodic) {
        Plan plan = PlanCalculator.plan(desired, dp.observe(periodic), dp.journal().ownership(),
                dp.modifySupported());
        return dp.apply(plan);
    }

    @Test
    void theFirstSyncCreatesTheRemoteEndpointAndLoadBalancersAndOwnsThem() {
        HnsDataplane dp = dataplane();
        ApplyResult result = sync(dp, desired());

        assertThat(result.complete()).isTrue();
        assertThat(result.created()).isEqualTo(3);
        List<HostComputeLoadBalancer> lbs = hns.listLoadBalancers();
        assertThat(lbs).hasSize(2);
        assertThat(dp.journal().ownership().loadBalancerIds()).containsExactlyInAnyOrderElementsOf(
                lbs.stream().map(lb -> lower(lb.id())).toList());
        assertThat(dp.journal().remoteEndpoints().values()).extracting(OwnershipJournal.RemoteEndpointEntry::ip)
                .containsExactly("10.244.2.6");
        HostComputeLoadBalancer webLb = lbs.stream().filter(lb -> lb.frontendVips().contains("10.96.0.80"))
                .findFirst().orElseThrow();
        assertThat(webLb.hostComputeEndpoints()).hasSize(2);
        assertThat(OwnershipJournal.open(stateDir).loadBalancer(webLb.id())).get()
                .extracting(OwnershipJournal.LoadBalancerEntry::service).isEqualTo("default/web:http");
    }

    @Test
    void aLeftoverUnownedRemoteEndpointAtALocalPodsIpIsGoneAfterOneSyncAndTheLoadBalancerUsesTheLocalEndpoint() {
        // e.g. upstream kube-proxy's, from before this pod moved to this node (kubernetes PR #138000).
        String network = hns.getNetworkByName("overlay").orElseThrow().id();
        HostComputeEndpoint leftover = hns.createEndpoint(network, HostComputeEndpoint.remote(network, "10.244.1.5",
                "02-11-0a-f4-01-05", "192.168.1.11"));
        String local = hns.listEndpoints(network).stream().filter(e -> !e.isRemote()
                && e.ipAddresses().contains("10.244.1.5")).findFirst().orElseThrow().id();
        HnsDataplane dp = dataplane();

        ApplyResult result = sync(dp, desired());

        assertThat(result.failures()).isEmpty();
        assertThat(hns.getEndpoint(leftover.id())).isEmpty();
        assertThat(hns.getEndpoint(local)).as("the local endpoint stays").isPresent();
        HostComputeLoadBalancer webLb = hns.listLoadBalancers().stream()
                .filter(lb -> lb.frontendVips().contains("10.96.0.80")).findFirst().orElseThrow();
        assertThat(webLb.hostComputeEndpoints()).map(HnsDataplaneTest::lower).contains(lower(local))
                .doesNotContain(lower(leftover.id()));
        hns.journal().reset();
        assertThat(sync(dp, desired()).writes()).as("converged").isZero();
    }

    @Test
    void anUnchangedClusterMakesZeroHnsWritesPerSync() {
        HnsDataplane dp = dataplane();
        sync(dp, desired());
        hns.journal().reset();
        for (int i = 0; i < 3; i++) {
            nanos.addAndGet(Duration.ofSeconds(1).toNanos());
            ApplyResult result = sync(dp, desired());
            assertThat(result.writes()).isZero();
        }
        assertThat(hns.journal().writes()).isZero();
    }

    @Test
    void aRestartThatLostItsJournalAdoptsTheMatchingObjectsWithoutAnyWrite() throws Exception {
        sync(dataplane(), desired());
        loseJournal();
        hns.journal().reset();

        HnsDataplane restarted = dataplane();
        ApplyResult result = sync(restarted, desired());

        assertThat(hns.journal().writes()).isZero();
        assertThat(result.adopted()).isEqualTo(3);
        assertThat(restarted.journal().ownership().loadBalancerIds()).hasSize(2);
        assertThat(restarted.journal().ownership().remoteEndpointIds()).hasSize(1);
        // Adopted with fingerprints: the next sync reads nothing and writes nothing.
        hns.journal().reset();
        assertThat(sync(restarted, desired()).writes()).isZero();
        assertThat(hns.journal().count(HnsCall.QUERY)).isEqualTo(1);
    }

    @Test
    void aLoadBalancerDeletedBehindWinproxysBackIsRecreatedByTheNextSync() {
        HnsDataplane dp = dataplane();
        sync(dp, desired());
        String victim = hns.listLoadBalancers().stream().filter(lb -> lb.frontendVips().contains("10.96.0.10"))
                .findFirst().orElseThrow().id();
        hns.deleteLoadBalancer(victim);

        ApplyResult result = sync(dp, desired());

        assertThat(result.created()).isEqualTo(1);
        assertThat(hns.listLoadBalancers()).hasSize(2)
                .anySatisfy(lb -> assertThat(lb.frontendVips()).containsExactly("10.96.0.10"));
        // Re-created under its old ID, so that HNS restoring the old object (after a restart) cannot duplicate it.
        assertThat(hns.getLoadBalancer(victim)).isPresent();
        assertThat(dp.journal().ownsLoadBalancer(victim)).isTrue();
    }

    @Test
    void aLoadBalancerChangedBehindWinproxysBackIsRestoredWithinOneSyncPeriod() {
        HnsDataplane dp = dataplane();
        sync(dp, desired());
        HostComputeLoadBalancer webLb = hns.listLoadBalancers().stream()
                .filter(lb -> lb.frontendVips().contains("10.96.0.80")).findFirst().orElseThrow();
        hns.modifyLoadBalancer(webLb.id(),
                webLb.withId(null).withEndpoints(webLb.hostComputeEndpoints().subList(0, 1)));
        assertThat(hns.getLoadBalancer(webLb.id()).orElseThrow().hostComputeEndpoints()).hasSize(1);

        // A sync for a change does not look for content drift; the periodic resync a period later does.
        sync(dp, desired());
        assertThat(hns.getLoadBalancer(webLb.id()).orElseThrow().hostComputeEndpoints()).hasSize(1);
        nanos.addAndGet(SYNC_PERIOD.toNanos());
        sync(dp, desired(), true);

        assertThat(hns.getLoadBalancer(webLb.id()).orElseThrow().hostComputeEndpoints()).hasSize(2);
    }

    @Test
    void driftReadsOfObjectsThatHoldWhatWinproxyWroteAreNoNewsToThePlanner() {
        HnsDataplane dp = dataplane();
        sync(dp, desired());
        dp.observe(false); // the objects earn drift credit from here: they did not exist before the first sync
        hns.journal().reset();
        nanos.addAndGet(SYNC_PERIOD.toNanos());
        dp.observe(true);
        assertThat(hns.journal().count(HnsCall.QUERY, HnsObjectKind.LOAD_BALANCER)).as("both re-read").isEqualTo(2);
        assertThat(hns.journal().count(HnsCall.QUERY, HnsObjectKind.ENDPOINT)).as("the remote endpoint re-read")
                .isEqualTo(1);
        assertThat(dp.hostChanges().everything()).isFalse();
        assertThat(dp.hostChanges().loadBalancerKeys()).isEmpty();
        assertThat(dp.hostChanges().ips()).isEmpty();

        HostComputeLoadBalancer webLb = hns.listLoadBalancers().stream()
                .filter(lb -> lb.frontendVips().contains("10.96.0.80")).findFirst().orElseThrow();
        hns.modifyLoadBalancer(webLb.id(), webLb.withId(null).withEndpoints(webLb.hostComputeEndpoints().subList(0, 1)));
        nanos.addAndGet(SYNC_PERIOD.toNanos());
        dp.observe(true);
        assertThat(dp.hostChanges().loadBalancerKeys()).extracting(Object::toString).containsExactly("10.96.0.80:80/TCP");
    }

    @Test
    void objectsAFirstSyncCreatedEarnNoDriftCreditForTheTimeBeforeTheyExisted() {
        HnsDataplane dp = dataplane();
        nanos.addAndGet(SYNC_PERIOD.toNanos());
        sync(dp, desired());
        hns.journal().reset();
        nanos.addAndGet(SYNC_PERIOD.toNanos());
        dp.observe(true);
        assertThat(hns.journal().count(HnsCall.QUERY)).as("only the network: nothing was tracked a period ago")
                .isEqualTo(1);
        hns.journal().reset();
        nanos.addAndGet(SYNC_PERIOD.toNanos());
        dp.observe(true);
        assertThat(hns.journal().count(HnsCall.QUERY)).as("a period later, every owned object").isEqualTo(1 + 3);
    }

    @Test
    void frequentSyncsReadOnlyAFractionOfTheOwnedLoadBalancers() {
        HnsDataplane dp = dataplane();
        sync(dp, desired());
        hns.journal().reset();
        nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        sync(dp, desired(), true);
        assertThat(hns.journal().count(HnsCall.OPEN, HnsObjectKind.LOAD_BALANCER)).isLessThanOrEqualTo(1);
    }

    @Test
    void aSyncWithoutChangeIsThreeEnumeratesAndOneNetworkReadWithNoDocumentOfAnOwnedObject() {
        HnsDataplane dp = dataplane();
        sync(dp, desired());
        hns.journal().reset();
        ApplyResult result = sync(dp, desired());
        assertThat(result.writes()).isZero();
        assertThat(hns.journal().snapshot()).containsOnly(Map.entry("HcnEnumerateNetworks", 1),
                Map.entry("HcnOpenNetwork", 1), Map.entry("HcnQueryNetworkProperties", 1),
                Map.entry("HcnCloseNetwork", 1), Map.entry("HcnEnumerateEndpoints", 1),
                Map.entry("HcnEnumerateLoadBalancers", 1));
    }

    @Test
    void theDriftBudgetCapsTheReadsOfOnePeriodicResync() {
        HnsDataplane dp = new HnsDataplane(hns, "overlay", OwnershipJournal.open(stateDir), SYNC_PERIOD,
                nanos::get, new DriftBudget(Duration.ZERO, 2), () -> UUID.randomUUID().toString());
        sync(dp, desired());
        hns.journal().reset();
        sync(dp, desired(), true);
        assertThat(hns.journal().count(HnsCall.QUERY)).isEqualTo(1 + 2);
        hns.journal().reset();
        sync(dp, desired(), true);
        // The rotation goes on with the third owned object, then starts over.
        assertThat(hns.journal().count(HnsCall.QUERY)).isEqualTo(1 + 2);
    }

    @Test
    void objectsAreCreatedWithIdsTheJournalRecordedBeforeTheCreate() {
        List<String> ids = new java.util.ArrayList<>();
        HnsDataplane dp = new HnsDataplane(hns, "overlay", OwnershipJournal.open(stateDir), SYNC_PERIOD,
                nanos::get, new DriftBudget(SYNC_PERIOD, 100), () -> {
                    String id = UUID.randomUUID().toString();
                    ids.add(id);
                    return id;
                });
        // The first load balancer create fails: its reserved ID is forgotten, nothing is left unowned.
        hns.faults().failNext(HnsCall.CREATE, HnsObjectKind.LOAD_BALANCER, 1, HResults.HCN_E_INVALID_POLICY);
        sync(dp, desired());
        OwnershipJournal onDisk = OwnershipJournal.open(stateDir);
        assertThat(ids).hasSize(3);
        assertThat(onDisk.ownership().loadBalancerIds()).hasSize(1).allMatch(ids::contains);
        assertThat(onDisk.ownership().remoteEndpointIds()).hasSize(1).allMatch(ids::contains);
        String networkId = hns.getNetworkByName("overlay").orElseThrow().id();
        assertThat(hns.listLoadBalancerIds()).map(HnsDataplaneTest::lower).allMatch(ids::contains);
        assertThat(hns.listEndpoints(networkId)).filteredOn(HostComputeEndpoint::isRemote)
                .allMatch(e -> ids.contains(lower(e.id())));
    }

    @Test
    void aModifyThatKeepsTheOldBackendsSwitchesModifyOffAndReplaces() {
        hns.setVersion(HnsVersion.WINDOWS_SERVER_2025);
        // A client that claims modify on 15.4, where HNS keeps the old endpoint references (kubernetes#131466).
        HnsClient claimsModify = new ForwardingHnsClient(hns) {
            @Override
            public HnsCapabilities capabilities() {
                return HnsFeatures.forVersion(MODIFY_WORKS);
            }
        };
        HnsDataplane dp = new HnsDataplane(claimsModify, "overlay", OwnershipJournal.open(stateDir), SYNC_PERIOD,
                nanos::get, new DriftBudget(SYNC_PERIOD, 100), () -> UUID.randomUUID().toString());
        sync(dp, desired());
        assertThat(dp.modifySupported()).isTrue();

        ApplyResult result = sync(dp, new DesiredState(List.of(web(List.of("10.244.1.5")), dns()), List.of(),
                List.of()));

        assertThat(result.failures()).isEmpty();
        assertThat(dp.modifySupported()).isFalse();
        assertThat(webLb().hostComputeEndpoints()).hasSize(1);
        assertThat(dp.journal().ownsLoadBalancer(webLb().id())).isTrue();
    }

    @Test
    void whenModifyIsNotImplementedTheLoadBalancerIsReplacedAndLaterPlansReplace() {
        HnsDataplane dp = dataplane();
        sync(dp, desired());
        assertThat(dp.modifySupported()).isTrue();
        hns.faults().failNext(HnsCall.MODIFY, HnsObjectKind.LOAD_BALANCER, 1, HResults.E_NOTIMPL);

        ApplyResult result = sync(dp, new DesiredState(List.of(web(List.of("10.244.1.5")), dns()), List.of(),
                List.of()));

        assertThat(result.failures()).isEmpty();
        assertThat(dp.modifySupported()).isFalse();
        HostComputeLoadBalancer webLb = hns.listLoadBalancers().stream()
                .filter(lb -> lb.frontendVips().contains("10.96.0.80")).findFirst().orElseThrow();
        assertThat(webLb.hostComputeEndpoints()).hasSize(1);
        assertThat(dp.journal().ownsLoadBalancer(webLb.id())).isTrue();
    }

    @Test
    void aFailingObjectDoesNotBlockTheOthersAndBacksOff() {
        HnsDataplane dp = dataplane();
        hns.faults().failNext(HnsCall.CREATE, HnsObjectKind.LOAD_BALANCER, 1, HResults.HCN_E_PORT_ALREADY_EXISTS);

        ApplyResult first = sync(dp, desired());
        assertThat(first.failures()).hasSize(1);
        assertThat(first.failures().get(0).hresult()).isEqualTo("HCN_E_PORT_ALREADY_EXISTS");
        assertThat(hns.listLoadBalancers()).hasSize(1);

        ApplyResult immediately = sync(dp, desired());
        assertThat(immediately.deferred()).hasSize(1);
        assertThat(immediately.writes()).isZero();

        nanos.addAndGet(Duration.ofSeconds(2).toNanos());
        ApplyResult later = sync(dp, desired());
        assertThat(later.complete()).isTrue();
        assertThat(hns.listLoadBalancers()).hasSize(2);
    }

    @Test
    void aRemoteEndpointNoLongerNeededIsDeletedButLocalEndpointsNeverAre() {
        HnsDataplane dp = dataplane();
        sync(dp, desired());
        sync(dp, new DesiredState(List.of(dns()), List.of(), List.of()));

        assertThat(hns.listLoadBalancers()).hasSize(1);
        String networkId = hns.getNetworkByName("overlay").orElseThrow().id();
        assertThat(hns.listEndpoints(networkId)).noneMatch(e -> e.isRemote())
                .anySatisfy(e -> assertThat(e.ipConfigurations().get(0).ipAddress()).isEqualTo("10.244.1.5"));

        String localId = hns.listEndpoints(networkId).stream().filter(e -> !e.isRemote()).findFirst().orElseThrow()
                .id();
        dp.observe();
        ApplyResult refused = dp.apply(new Plan(List.of(new PlanStep.DeleteRemoteEndpoint(localId, "10.244.1.5")),
                List.of()));
        assertThat(refused.writes()).isZero();
        assertThat(hns.getEndpoint(localId)).isPresent();
    }

    @Test
    void aRemoteEndpointDeletedBehindWinproxysBackIsRecreatedByTheNextSync() {
        HnsDataplane dp = dataplane();
        sync(dp, desired());
        String networkId = hns.getNetworkByName("overlay").orElseThrow().id();
        String oldRemote = hns.listEndpoints(networkId).stream().filter(e -> e.isRemote()).findFirst().orElseThrow()
                .id();
        // HNS refuses to delete a referenced endpoint, so an operator removes the policy list first.
        hns.listLoadBalancers().stream().filter(lb -> lb.hostComputeEndpoints().size() == 2)
                .forEach(lb -> hns.deleteLoadBalancer(lb.id()));
        hns.deleteEndpoint(oldRemote);

        ApplyResult result = sync(dp, desired());

        assertThat(result.complete()).isTrue();
        assertThat(result.created()).isEqualTo(2);
        List<HostComputeEndpoint> remote = hns.listEndpoints(networkId).stream().filter(e -> e.isRemote()).toList();
        assertThat(remote).singleElement().satisfies(e -> {
            assertThat(e.ipConfigurations().get(0).ipAddress()).isEqualTo("10.244.2.6");
            assertThat(e.id()).isEqualToIgnoringCase(oldRemote); // re-created under its old ID
            assertThat(dp.journal().ownsRemoteEndpoint(e.id())).isTrue();
        });
        assertThat(hns.listLoadBalancers()).anySatisfy(lb -> assertThat(lb.hostComputeEndpoints())
                .hasSize(2).contains(remote.get(0).id()));
    }

    @Test
    void aMissingNetworkIsReportedByName() {
        HnsDataplane dp = new HnsDataplane(hns, "nope", OwnershipJournal.inMemory(), SYNC_PERIOD, nanos::get);
        assertThatThrownBy(dp::observe).isInstanceOf(HnsNetworkNotFoundException.class).hasMessageContaining("nope");
    }

    @Test
    void anHnsRestartIsRepairedByTheNextSync() {
        HnsDataplane dp = dataplane();
        sync(dp, desired());
        hns.restartHns();

        ApplyResult result = sync(dp, desired());

        assertThat(result.complete()).isTrue();
        assertThat(hns.listLoadBalancers()).hasSize(2);
        assertThat(dp.journal().ownership().loadBalancerIds()).hasSize(2);
        assertThat(dp.journal().ownership().remoteEndpointIds()).hasSize(1);
    }

    @Test
    void anOldHnsWithoutModifyGetsReplaces() {
        hns.setVersion(HnsVersion.WINDOWS_SERVER_2019);
        HnsDataplane dp = dataplane();
        assertThat(dp.modifySupported()).isFalse();
        sync(dp, desired());
        ApplyResult result = sync(dp, new DesiredState(List.of(web(List.of("10.244.1.5")), dns()), List.of(),
                List.of()));
        assertThat(result.failures()).isEmpty();
        assertThat(hns.journal().count(HnsCall.MODIFY, HnsObjectKind.LOAD_BALANCER)).isZero();
    }

    @Test
    void onOverlayTheSourceVipGetsALocalEndpointWithTheHostMacWhenTheHostHasNoneAndObservingCreatesNothing() {
        HnsDataplane dp = dataplane();
        dp.observe();
        dp.observe();
        assertThat(hns.journal().count(HnsCall.CREATE, HnsObjectKind.ENDPOINT)).as("observe writes nothing").isZero();

        assertThat(dp.ensureSourceVipEndpoint("10.244.1.2", "00-15-5d-01-01-0b")).isTrue();
        dp.observe();
        assertThat(dp.ensureSourceVipEndpoint("10.244.1.2", "00-15-5d-01-01-0b")).as("already there").isFalse();

        String networkId = hns.getNetworkByName("overlay").orElseThrow().id();
        assertThat(hns.listEndpoints(networkId)).filteredOn(e -> !e.isRemote())
                .filteredOn(e -> e.ipConfigurations().get(0).ipAddress().equals("10.244.1.2")).singleElement()
                .satisfies(e -> assertThat(e.macAddress()).isEqualToIgnoringCase("00-15-5d-01-01-0b"));
        assertThat(hns.journal().count(HnsCall.CREATE, HnsObjectKind.ENDPOINT)).isEqualTo(1);
    }

    @Test
    void theSourceVipEndpointIsSentWithUpstreamsFieldsOnly() {
        List<HostComputeEndpoint> sent = new java.util.ArrayList<>();
        HnsDataplane dp = new HnsDataplane(new ForwardingHnsClient(hns) {
            @Override
            public HostComputeEndpoint createEndpoint(String networkId, HostComputeEndpoint settings) {
                sent.add(settings);
                return super.createEndpoint(networkId, settings);
            }
        }, "overlay", OwnershipJournal.open(stateDir), SYNC_PERIOD, nanos::get, new DriftBudget(SYNC_PERIOD, 100),
                () -> UUID.randomUUID().toString());
        dp.observe();
        dp.ensureSourceVipEndpoint("10.244.1.2", "00-15-5d-01-01-0b");

        assertThat(sent).singleElement().satisfies(e -> {
            assertThat(e.name()).isNull();
            assertThat(e.isRemote()).isFalse();
            assertThat(e.policies()).isEmpty();
            assertThat(e.ipConfigurations()).containsExactly(new io.winproxy.hns.model.IpConfiguration("10.244.1.2", 0));
            assertThat(e.macAddress()).isEqualTo("00-15-5d-01-01-0b");
        });
    }

    @Test
    void aRecreatedNetworkIsReprogrammedCompletely() {
        HnsDataplane dp = dataplane();
        sync(dp, desired());
        hns.restartHns();
        host.syncLocalEndpoints(Set.of());
        host.deleteNetwork();
        host.syncNetwork(NODES);
        host.syncLocalEndpoints(Set.of("10.244.1.5"));

        ApplyResult result = sync(dp, desired());

        assertThat(result.complete()).isTrue();
        assertThat(hns.listLoadBalancers()).hasSize(2);
        assertThat(dp.network().orElseThrow().id()).isEqualTo(hns.getNetworkByName("overlay").orElseThrow().id());
    }

    private static final DesiredRemoteEndpoint MOVED = new DesiredRemoteEndpoint("10.244.2.6", "192.168.1.22",
            "02-11-0a-f4-02-06");

    private static DesiredState movedDesired() {
        return new DesiredState(List.of(web(), dns()), List.of(MOVED), List.of());
    }

    private void moveWinB() {
        host.syncNetwork(List.of(new EmulatedHost.Node("win-a", "10.244.1.0/24", "192.168.1.11"),
                new EmulatedHost.Node("win-b", "10.244.2.0/24", "192.168.1.22")));
        assertThat(hns.getNetworkByName("overlay").orElseThrow().remoteSubnetRoutes())
                .anySatisfy(r -> assertThat(r.providerAddress()).isEqualTo("192.168.1.22"));
    }

    private HostComputeLoadBalancer webLb() {
        return hns.listLoadBalancers().stream().filter(lb -> lb.frontendVips().contains("10.96.0.80")).findFirst()
                .orElseThrow();
    }

    private List<HostComputeEndpoint> remoteEndpoints() {
        String networkId = hns.getNetworkByName("overlay").orElseThrow().id();
        return hns.listEndpoints(networkId).stream().filter(HostComputeEndpoint::isRemote).toList();
    }

    private void assertWebUsesTheNewPaAndASecondSyncWritesNothing(HnsDataplane dp, String oldRemote) {
        HostComputeEndpoint moved = remoteEndpoints().stream()
                .filter(e -> e.providerAddress().orElse("").equals("192.168.1.22")).findFirst().orElseThrow();
        assertThat(moved.ipAddress()).contains("10.244.2.6");
        assertThat(webLb().hostComputeEndpoints()).hasSize(2).contains(moved.id()).doesNotContain(oldRemote);
        assertThat(dp.journal().ownsRemoteEndpoint(moved.id())).isTrue();
        assertThat(dp.journal().ownsRemoteEndpoint(oldRemote)).isFalse();

        hns.journal().reset();
        nanos.addAndGet(SYNC_PERIOD.toNanos());
        ApplyResult again = sync(dp, movedDesired());
        assertThat(again.writes()).isZero();
        assertThat(hns.journal().writes()).isZero();
    }

    @Test
    void aNodeWithANewIpGetsItsRemoteEndpointRecreatedWithTheNewPaAndTheOldOneDeleted() {
        hns.setEcho(EchoProfile.VERBATIM);
        HnsDataplane dp = dataplane();
        sync(dp, desired());
        String oldRemote = remoteEndpoints().get(0).id();
        String oldWebLb = webLb().id();
        moveWinB();

        ApplyResult result = sync(dp, movedDesired());

        assertThat(result.failures()).isEmpty();
        assertThat(result.created()).isEqualTo(1);
        assertThat(result.modified()).isEqualTo(1);
        assertThat(result.deleted()).isEqualTo(1);
        assertThat(remoteEndpoints()).singleElement().satisfies(e -> assertThat(e.id()).isNotEqualTo(oldRemote));
        assertThat(webLb().id()).isEqualTo(oldWebLb);
        assertWebUsesTheNewPaAndASecondSyncWritesNothing(dp, oldRemote);
    }

    @Test
    void withoutModifyTheLoadBalancerIsReplacedBeforeTheOldEndpointIsDeleted() {
        hns.setVersion(HnsVersion.WINDOWS_SERVER_2019);
        hns.setEcho(EchoProfile.VERBATIM);
        HnsDataplane dp = dataplane();
        sync(dp, desired());
        String oldRemote = remoteEndpoints().get(0).id();
        moveWinB();

        ApplyResult result = sync(dp, movedDesired());

        assertThat(result.failures()).isEmpty();
        assertThat(remoteEndpoints()).hasSize(1);
        assertThat(hns.journal().count(HnsCall.MODIFY, HnsObjectKind.LOAD_BALANCER)).isZero();
        assertWebUsesTheNewPaAndASecondSyncWritesNothing(dp, oldRemote);
    }

    @Test
    void anUnownedEndpointWithAStalePaIsLeftInPlaceButNoLoadBalancerUsesItEvenAfterARestart() {
        // Only when HNS returns the provider address can an unowned endpoint's be known to be stale.
        hns.setEcho(EchoProfile.VERBATIM);
        String networkId = hns.getNetworkByName("overlay").orElseThrow().id();
        String foreign = hns.createEndpoint(networkId, HostComputeEndpoint.remote(networkId, "10.244.2.6",
                "02-11-0a-f4-02-06", "192.168.1.12")).id();
        moveWinB();
        HnsDataplane dp = dataplane();

        ApplyResult result = sync(dp, movedDesired());

        assertThat(result.failures()).isEmpty();
        assertThat(remoteEndpoints()).hasSize(2).anySatisfy(e -> assertThat(e.id()).isEqualTo(foreign));
        assertWebUsesTheNewPaAndASecondSyncWritesNothing(dp, foreign);

        HnsDataplane restarted = dataplane();
        assertThat(sync(restarted, movedDesired()).writes()).isZero();
        // A later change re-resolves the backend: it must pick winproxy's endpoint, not the older unowned one.
        DesiredState onlyRemote = new DesiredState(List.of(web(List.of("10.244.2.6")), dns()), List.of(MOVED),
                List.of());
        assertThat(sync(restarted, onlyRemote).modified()).isEqualTo(1);
        assertThat(webLb().hostComputeEndpoints()).singleElement().isNotEqualTo(foreign)
                .satisfies(id -> assertThat(restarted.journal().ownsRemoteEndpoint(id)).isTrue());
        nanos.addAndGet(SYNC_PERIOD.toNanos());
        assertThat(sync(restarted, onlyRemote).writes()).isZero();
    }

    @Test
    void aCrashInTheMiddleOfTheFirstSyncLeavesNoObjectWinproxyCreatedWithoutOwningIt() {
        // Enough objects for several write-ahead chunks; the "process" dies at the 300th create.
        List<String> backends = new java.util.ArrayList<>();
        List<DesiredRemoteEndpoint> remotes = new java.util.ArrayList<>();
        for (int i = 0; i < 400; i++) {
            String ip = "10.244." + (2 + i / 250) + "." + (i % 250);
            backends.add(ip);
            remotes.add(new DesiredRemoteEndpoint(ip, "192.168.1.12", "02-11-00-00-00-00"));
        }
        DesiredState big = new DesiredState(List.of(web(backends)), remotes, List.of());
        java.util.concurrent.atomic.AtomicInteger creates = new java.util.concurrent.atomic.AtomicInteger();
        HnsClient dying = new ForwardingHnsClient(hns) {
            @Override
            public io.winproxy.hns.NetworkSession openNetwork(String networkId) {
                io.winproxy.hns.NetworkSession session = super.openNetwork(networkId);
                return new io.winproxy.hns.NetworkSession() {
                    @Override
                    public String networkId() {
                        return session.networkId();
                    }

                    @Override
                    public HostComputeEndpoint createEndpoint(HostComputeEndpoint settings) {
                        HostComputeEndpoint created = session.createEndpoint(settings);
                        if (creates.incrementAndGet() == 300) {
                            throw new ProcessKilled();
                        }
                        return created;
                    }

                    @Override
                    public void close() {
                        session.close();
                    }
                };
            }
        };
        HnsDataplane first = new HnsDataplane(dying, "overlay", OwnershipJournal.open(stateDir), SYNC_PERIOD,
                nanos::get, new DriftBudget(SYNC_PERIOD, 100), () -> UUID.randomUUID().toString());
        assertThatThrownBy(() -> sync(first, big)).isInstanceOf(ProcessKilled.class);
        String networkId = hns.getNetworkByName("overlay").orElseThrow().id();
        assertThat(remoteEndpoints()).hasSize(300);

        // The journal named every endpoint before it was created (the whole chunk, even those never created), so
        // the restarted agent owns all 300, and once no Service needs them, deletes every one.
        HnsDataplane restarted = dataplane();
        assertThat(restarted.journal().ownership().remoteEndpointIds()).hasSizeGreaterThanOrEqualTo(300);
        sync(restarted, new DesiredState(List.of(), List.of(), List.of()));
        assertThat(hns.listEndpoints(networkId)).noneMatch(HostComputeEndpoint::isRemote);
        assertThat(hns.listLoadBalancerIds()).isEmpty();
        assertThat(restarted.journal().ownership().remoteEndpointIds()).isEmpty();
    }

    @Test
    void hostChangesNameWhatVanishedSoThatPlansCanBeIncremental() {
        HnsDataplane dp = dataplane();
        sync(dp, desired());
        assertThat(dp.hostChanges().everything()).as("the first observe").isTrue();
        sync(dp, desired());
        assertThat(dp.hostChanges()).isEqualTo(new io.winproxy.policy.plan.IncrementalPlanner.HostChanges(false,
                Set.of(), Set.of()));

        String dnsLb = hns.listLoadBalancers().stream().filter(lb -> lb.frontendVips().contains("10.96.0.10"))
                .findFirst().orElseThrow().id();
        hns.deleteLoadBalancer(dnsLb);
        dp.observe();
        assertThat(dp.hostChanges().loadBalancerKeys()).containsExactly(dns().key());

        moveWinB();
        dp.observe();
        assertThat(dp.hostChanges().everything()).as("new routes change provider addresses").isTrue();
    }

    /** HNS versions of the echo profiles (VERBATIM on a version with a working modify). */
    private static HnsVersion versionOf(EchoProfile profile) {
        return switch (profile) {
            case WS2019 -> HnsVersion.WINDOWS_SERVER_2019;
            case WS2022 -> HnsVersion.WINDOWS_SERVER_2022;
            case WS2025 -> HnsVersion.WINDOWS_SERVER_2025;
            case VERBATIM -> MODIFY_WORKS;
        };
    }

    /** A NodePort with the fields some HNS versions drop on read-back: port-mapping flag 16 and DistributionType. */
    private static DesiredLoadBalancer nodePort() {
        return new DesiredLoadBalancer(WEB, LoadBalancerKind.NODE_PORT,
                new LoadBalancerKey(IpFamily.IPV4, "", Protocol.TCP, 30080), 8080, List.of("10.244.1.5", "10.244.2.6"),
                "", 0, 16 | 2, 2);
    }

    @ParameterizedTest
    @EnumSource(EchoProfile.class)
    void onEveryEchoProfileNothingIsRecreatedAndRestartsAdoptWithoutWrites(EchoProfile profile) throws IOException {
        hns.setVersion(versionOf(profile));
        hns.setEcho(profile);
        DesiredState state = new DesiredState(List.of(web(List.of("10.244.1.5", "10.244.2.6")), dns(), nodePort()),
                List.of(REMOTE), List.of());
        HnsDataplane dp = dataplane();
        assertThat(sync(dp, state).created()).isEqualTo(4);

        hns.journal().reset();
        nanos.addAndGet(SYNC_PERIOD.toNanos());
        assertThat(sync(dp, state, true).writes()).as("a periodic resync reading every document").isZero();
        assertThat(hns.journal().writes()).isZero();

        hns.journal().reset();
        HnsDataplane restarted = dataplane();
        assertThat(sync(restarted, state).writes()).isZero();
        assertThat(hns.journal().count(HnsCall.QUERY, HnsObjectKind.LOAD_BALANCER)).as("owned, not read").isZero();

        loseJournal();
        hns.journal().reset();
        HnsDataplane adopting = dataplane();
        ApplyResult adopted = sync(adopting, state);
        assertThat(adopted.adopted()).isEqualTo(4);
        assertThat(hns.journal().writes()).isZero();
        nanos.addAndGet(SYNC_PERIOD.toNanos());
        assertThat(sync(adopting, state, true).writes()).isZero();
        assertThat(hns.journal().writes()).isZero();
    }

    /** Stands for the process dying: nothing after it runs, no finally of the dataplane may save the journal. */
    private static final class ProcessKilled extends Error {
    }
}
