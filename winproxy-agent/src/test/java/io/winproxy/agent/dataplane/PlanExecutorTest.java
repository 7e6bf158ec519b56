package io.winproxy.agent.dataplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsClient;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.DesiredRemoteEndpoint;
import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.desired.LoadBalancerKey;
import io.winproxy.policy.desired.LoadBalancerKind;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.Protocol;
import io.winproxy.policy.model.ServicePortName;
import io.winproxy.policy.plan.HnsIds;
import io.winproxy.policy.plan.Plan;
import io.winproxy.policy.plan.PlanCalculator;
import io.winproxy.policy.plan.PlanStep;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The executor's guarantees, through the real dataplane over the HNS emulator. */
class PlanExecutorTest {
    private static final ServicePortName WEB = new ServicePortName("default", "web", "http", Protocol.TCP);
    private static final Duration SYNC_PERIOD = Duration.ofSeconds(30);
    private static final DesiredRemoteEndpoint REMOTE = new DesiredRemoteEndpoint("10.244.2.6", "192.168.1.12",
            "02-11-0a-f4-02-06");

    @TempDir
    Path stateDir;

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private HnsEmulator emulator;
    private HnsClient hns;

    @BeforeEach
    void setUp() {
        emulator = HnsEmulator.builder().version(new HnsVersion(15, 5)).build();
        hns = emulator;
        EmulatedHost host = new EmulatedHost(emulator, EmulatedHost.NetworkType.OVERLAY, "overlay", "win-a");
        host.syncNetwork(List.of(new EmulatedHost.Node("win-a", "10.244.1.0/24", "192.168.1.11"),
                new EmulatedHost.Node("win-b", "10.244.2.0/24", "192.168.1.12")));
        host.syncLocalEndpoints(Set.of("10.244.1.5"));
    }

    private HnsDataplane dataplane(OwnershipJournal journal) {
        return new HnsDataplane(hns, "overlay", journal, SYNC_PERIOD, nanos::get, new DriftBudget(SYNC_PERIOD, 100),
                () -> HnsIds.newId(ThreadLocalRandom.current()));
    }

    private static DesiredLoadBalancer web(String vip) {
        return new DesiredLoadBalancer(WEB, LoadBalancerKind.CLUSTER_IP,
                new LoadBalancerKey(IpFamily.IPV4, vip, Protocol.TCP, 80), 8080,
                List.of("10.244.1.5", REMOTE.ip()), "", 0, 0, 0);
    }

    private static DesiredState desired(String... vips) {
        List<DesiredLoadBalancer> lbs = new ArrayList<>();
        for (String vip : vips) {
            lbs.add(web(vip));
        }
        return new DesiredState(lbs, List.of(REMOTE), List.of());
    }

    private static ApplyResult sync(HnsDataplane dp, DesiredState desired) {
        Plan plan = PlanCalculator.plan(desired, dp.observe(), dp.journal().ownership(), dp.modifySupported());
        return dp.apply(plan);
    }

    private static String lower(String id) {
        return id.toLowerCase(Locale.ROOT);
    }

    @Test
    void objectsWinproxyDeletedThatHnsListsAgainBeforeTheNextEnumerateAreSeenAndDeleted() {
        HnsDataplane dp = dataplane(OwnershipJournal.open(stateDir));
        sync(dp, desired("10.96.0.80"));
        String networkId = emulator.getNetworkByName("overlay").orElseThrow().id();
        HostComputeLoadBalancer lb = emulator.getLoadBalancer(emulator.listLoadBalancerIds().get(0)).orElseThrow();
        io.winproxy.hns.model.HostComputeEndpoint remote = emulator.listEndpoints(networkId).stream()
                .filter(io.winproxy.hns.model.HostComputeEndpoint::isRemote).findFirst().orElseThrow();
        DesiredState nothing = new DesiredState(List.of(), List.of(), List.of());
        assertThat(sync(dp, nothing).deleted()).isEqualTo(2);

        // HNS lists both again under their IDs (restored after its restart) before winproxy enumerates again: the
        // enumerate shows no ID that appeared, yet they must be read, seen as winproxy's, and deleted.
        emulator.createEndpoint(networkId, remote);
        emulator.createLoadBalancer(lb);
        Plan plan = PlanCalculator.plan(nothing, dp.observe(), dp.journal().ownership(), dp.modifySupported());

        assertThat(plan.steps()).extracting(s -> s.getClass().getSimpleName())
                .containsExactlyInAnyOrder("DeleteLoadBalancer", "DeleteRemoteEndpoint");
        ApplyResult result = dp.apply(plan);
        assertThat(result.deleted()).isEqualTo(2);
        assertThat(emulator.listLoadBalancerIds()).isEmpty();
        assertThat(emulator.listEndpoints(networkId)).noneMatch(io.winproxy.hns.model.HostComputeEndpoint::isRemote);
    }

    @Test
    void remoteEndpointDeletesAreSummarisedInOneInfoLinePerApply() {
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> log =
                new ch.qos.logback.core.read.ListAppender<>();
        ch.qos.logback.classic.Logger logger = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory
                .getLogger(Execution.class);
        log.start();
        logger.addAppender(log);
        try {
            HnsDataplane dp = dataplane(OwnershipJournal.open(stateDir));
            sync(dp, desired("10.96.0.80"));
            log.list.clear();

            ApplyResult result = sync(dp, new DesiredState(List.of(), List.of(), List.of()));

            assertThat(result.deleted()).as("the load balancer and the remote endpoint").isEqualTo(2);
            List<ch.qos.logback.classic.spi.ILoggingEvent> summaries = log.list.stream()
                    .filter(e -> e.getLevel() == ch.qos.logback.classic.Level.INFO)
                    .filter(e -> e.getMessage().startsWith("Deleted remote endpoints")).toList();
            assertThat(summaries).hasSize(1);
            assertThat(summaries.get(0).getKeyValuePairs()).extracting(kv -> kv.key + "=" + kv.value)
                    .contains("count=1", "ips=" + REMOTE.ip());
        } finally {
            logger.detachAppender(log);
        }
    }

    @Test
    void everyCreateIsDurableInTheJournalOnDiskBeforeHnsIsCalled() {
        List<String> unjournaledCreates = new ArrayList<>();
        hns = new ForwardingHnsClient(emulator) {
            @Override
            public HostComputeLoadBalancer createLoadBalancer(HostComputeLoadBalancer settings) {
                // A fresh journal reads only what is on disk: the ID must already be there.
                if (!OwnershipJournal.open(stateDir).ownsLoadBalancer(settings.id())) {
                    unjournaledCreates.add(settings.id());
                }
                return super.createLoadBalancer(settings);
            }
        };
        ApplyResult result = sync(dataplane(OwnershipJournal.open(stateDir)), desired("10.96.0.80", "10.96.0.81"));

        assertThat(result.created()).isEqualTo(3);
        assertThat(unjournaledCreates).isEmpty();
    }

    @Test
    void whileTheJournalCannotBeWrittenNothingIsCreatedButDeletesGoOnAndItResumesOnceWritable() throws IOException {
        Path dir = stateDir.resolve("state");
        HnsDataplane dp = dataplane(OwnershipJournal.open(dir));
        sync(dp, desired("10.96.0.80"));
        int before = emulator.listLoadBalancerIds().size();

        // The state directory becomes a file: every flush fails (as on a full or read-only disk).
        Files.walk(dir).sorted((a, b) -> b.compareTo(a)).forEach(p -> p.toFile().delete());
        Files.writeString(dir, "not a directory");
        ApplyResult blocked = sync(dp, desired("10.96.0.81"));

        assertThat(blocked.journalBlocked()).isTrue();
        assertThat(blocked.created()).isZero();
        assertThat(blocked.deleted()).as("the stale load balancer of 10.96.0.80 is still deleted").isEqualTo(1);
        assertThat(emulator.listLoadBalancerIds()).hasSize(before - 1);
        assertThat(dp.journal().writable()).isFalse();
        assertThat(dp.journal().writeErrors()).isPositive();

        Files.delete(dir);
        ApplyResult resumed = sync(dp, desired("10.96.0.81"));
        assertThat(resumed.journalBlocked()).isFalse();
        assertThat(resumed.created()).isEqualTo(1);
        assertThat(dp.journal().writable()).isTrue();
        assertThat(OwnershipJournal.open(dir).loadBalancerCount()).isEqualTo(1);
    }

    @Test
    void aLoadBalancerWaitsForTheRemoteEndpointItsBackendsNeedInsteadOfBeingCreatedWithoutIt() {
        AtomicBoolean failEndpoints = new AtomicBoolean(true);
        hns = new ForwardingHnsClient(emulator) {
            @Override
            public io.winproxy.hns.NetworkSession openNetwork(String networkId) {
                if (failEndpoints.get()) {
                    throw new HnsException(HResults.E_FAIL, "HcnOpenNetwork", "");
                }
                return super.openNetwork(networkId);
            }
        };
        HnsDataplane dp = dataplane(OwnershipJournal.open(stateDir));
        // The endpoint's create runs first and fails: the load balancer then serves the backend that exists.
        ApplyResult first = sync(dp, desired("10.96.0.80"));
        assertThat(first.failures()).extracting(ApplyResult.StepFailure::op).first().isEqualTo("create-remote-endpoint");
        assertThat(first.created()).isEqualTo(1);

        // The endpoint backs off: the next sync defers its create, and the load balancer's update waits for it
        // instead of being written without it again.
        ApplyResult second = sync(dp, desired("10.96.0.80"));
        assertThat(second.writes()).isZero();
        assertThat(second.deferred()).anyMatch(d -> d.startsWith("create-remote-endpoint"))
                .anyMatch(d -> d.endsWith("10.96.0.80:80/TCP"));

        failEndpoints.set(false);
        nanos.addAndGet(Duration.ofMinutes(3).toNanos());
        ApplyResult third = sync(dp, desired("10.96.0.80"));
        assertThat(third.complete()).isTrue();
        HostComputeLoadBalancer lb = emulator.listLoadBalancers().get(0);
        assertThat(lb.hostComputeEndpoints()).hasSize(2);
    }

    @Test
    void whenHnsGivesItsOwnIdsTheyAreJournaledAndChosenIdsAreSwitchedOff() {
        hns = new ForwardingHnsClient(emulator) {
            @Override
            public HostComputeLoadBalancer createLoadBalancer(HostComputeLoadBalancer settings) {
                return super.createLoadBalancer(settings.withId(UUID.randomUUID().toString().toUpperCase(Locale.ROOT)));
            }
        };
        HnsDataplane dp = dataplane(OwnershipJournal.open(stateDir));
        ApplyResult result = sync(dp, desired("10.96.0.80", "10.96.0.81"));

        assertThat(result.complete()).isTrue();
        assertThat(dp.idChoice()).contains("HNS assigns its own IDs");
        Set<String> owned = OwnershipJournal.open(stateDir).loadBalancers().keySet();
        assertThat(owned).hasSize(2).allMatch(id -> !HnsIds.isWinproxys(id));
        assertThat(emulator.listLoadBalancerIds()).extracting(PlanExecutorTest::lower)
                .containsExactlyInAnyOrderElementsOf(owned);
        assertThat(sync(dp, desired("10.96.0.80", "10.96.0.81")).writes()).isZero();
    }

    @Test
    void whenHnsRejectsACallerIdTheCreateIsRetriedWithoutOne() {
        hns = new ForwardingHnsClient(emulator) {
            @Override
            public HostComputeLoadBalancer createLoadBalancer(HostComputeLoadBalancer settings) {
                if (settings.id() != null) {
                    throw new HnsException(HResults.E_INVALIDARG, "HcnCreateLoadBalancer", "");
                }
                return super.createLoadBalancer(settings.withId(UUID.randomUUID().toString()));
            }
        };
        HnsDataplane dp = dataplane(OwnershipJournal.open(stateDir));
        ApplyResult result = sync(dp, desired("10.96.0.80"));

        assertThat(result.complete()).isTrue();
        assertThat(result.created()).isEqualTo(2);
        assertThat(dp.idChoice()).contains("refuses caller-chosen IDs");
        assertThat(OwnershipJournal.open(stateDir).loadBalancerCount()).isEqualTo(1);
        assertThat(sync(dp, desired("10.96.0.80")).writes()).isZero();
    }

    @Test
    void aJournalEntryNamingAnotherToolsLoadBalancerDoesNotGetItDeleted() {
        HnsDataplane dp = dataplane(OwnershipJournal.open(stateDir));
        sync(dp, desired("10.96.0.80"));
        // Another tool's load balancer (random GUID, no mark) is named by an edited journal for another key.
        String localEndpoint = emulator.listEndpoints(emulator.getNetworkByName("overlay").orElseThrow().id()).stream()
                .filter(e -> !e.isRemote()).findFirst().orElseThrow().id();
        String foreign = hns.createLoadBalancer(HcnTranslator.toHcn(web("10.96.0.99"), List.of(localEndpoint))
                .withId(UUID.randomUUID().toString())).id();
        dp.journal().recordLoadBalancer(foreign, "default/old:http", "10.96.0.50:80/TCP");
        dp.journal().flush();

        HnsDataplane restarted = dataplane(OwnershipJournal.open(stateDir));
        ApplyResult result = sync(restarted, desired("10.96.0.80"));

        assertThat(emulator.listLoadBalancerIds()).extracting(PlanExecutorTest::lower).contains(lower(foreign));
        assertThat(result.deleted()).isZero();
        assertThat(restarted.journal().ownsLoadBalancer(foreign)).isFalse();
    }

    @Test
    void aStopRequestEndsTheApplyBeforeItsNextStepAndLeavesTheRestForLater() {
        java.util.concurrent.atomic.AtomicReference<HnsDataplane> running = new java.util.concurrent.atomic.AtomicReference<>();
        hns = new ForwardingHnsClient(emulator) {
            @Override
            public HostComputeLoadBalancer createLoadBalancer(HostComputeLoadBalancer settings) {
                HostComputeLoadBalancer created = super.createLoadBalancer(settings);
                running.get().requestStop(); // SIGTERM arrives during the first load-balancer create
                return created;
            }
        };
        HnsDataplane dp = dataplane(OwnershipJournal.open(stateDir));
        running.set(dp);
        Plan plan = PlanCalculator.plan(desired("10.96.0.80", "10.96.0.81", "10.96.0.82"), dp.observe(),
                dp.journal().ownership(), true);
        ApplyResult result = dp.apply(plan);

        // The remote endpoint, then one load balancer; the two others wait, and nothing is left reserved.
        assertThat(result.created()).isEqualTo(2);
        assertThat(result.remaining()).isEqualTo(2);
        assertThat(emulator.listLoadBalancerIds()).hasSize(1);
        assertThat(OwnershipJournal.open(stateDir).loadBalancerCount()).isEqualTo(1);
    }
}
