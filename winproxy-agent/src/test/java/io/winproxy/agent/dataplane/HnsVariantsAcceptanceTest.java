package io.winproxy.agent.dataplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.hns.HnsClient;
import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.emulator.HnsVariant;
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
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The dataplane against every HNS variant the emulator knows, alone and all together (the pessimist made systematic):
 * the first syncs converge (a full plan then has no step), a no-op resync and a restart with the journal write
 * nothing, one endpoint change writes only for it, and a sync cut short by a crash leaks nothing.
 */
class HnsVariantsAcceptanceTest {
    private static final Duration SYNC_PERIOD = Duration.ofSeconds(30);
    private static final int SERVICES = 6;

    @TempDir
    Path stateDir;

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    static Stream<Arguments> variants() {
        List<Arguments> out = new ArrayList<>();
        out.add(Arguments.of(EnumSet.noneOf(HnsVariant.class)));
        for (HnsVariant v : HnsVariant.values()) {
            out.add(Arguments.of(EnumSet.of(v)));
        }
        out.add(Arguments.of(EnumSet.allOf(HnsVariant.class)));
        out.add(Arguments.of(EnumSet.of(HnsVariant.IDS_REJECTED, HnsVariant.DUPLICATE_FRONTEND,
                HnsVariant.MODIFY_NOOP)));
        return out.stream();
    }

    private static DesiredLoadBalancer lb(int n, List<String> backends) {
        return new DesiredLoadBalancer(new ServicePortName("default", "svc-" + n, "http", Protocol.TCP),
                LoadBalancerKind.CLUSTER_IP, new LoadBalancerKey(IpFamily.IPV4, "10.96.0." + n, Protocol.TCP, 80),
                8080, backends, "10.244.1.2", 0, 0, 0);
    }

    private static DesiredRemoteEndpoint remote(int n) {
        return new DesiredRemoteEndpoint("10.244.2." + n, "192.168.1.12", "02-11-0a-f4-02-" + String.format(
                Locale.ROOT, "%02x", n));
    }

    /** Services 1..count, each with the local pod and one remote pod (service n's remote pod is 10.244.2.n). */
    private static DesiredState desired(int count, int changedService) {
        List<DesiredLoadBalancer> lbs = new ArrayList<>();
        List<DesiredRemoteEndpoint> remotes = new ArrayList<>();
        for (int n = 1; n <= count; n++) {
            int pod = n == changedService ? 100 + n : n;
            lbs.add(lb(n, List.of("10.244.1.5", "10.244.2." + pod)));
            remotes.add(remote(pod));
        }
        return new DesiredState(lbs, remotes, List.of());
    }

    private HnsDataplane dataplane(HnsClient hns) {
        return new HnsDataplane(hns, "overlay", OwnershipJournal.open(stateDir), SYNC_PERIOD, nanos::get,
                new DriftBudget(SYNC_PERIOD, 100), () -> HnsIds.newId(ThreadLocalRandom.current()));
    }

    private static HnsEmulator host(Set<HnsVariant> variants) {
        return host(variants, Set.of("10.244.1.5", "10.244.1.2"));
    }

    private static HnsEmulator host(Set<HnsVariant> variants, Set<String> localEndpoints) {
        HnsEmulator emulator = HnsEmulator.builder().version(new HnsVersion(15, 5)).build();
        EmulatedHost host = new EmulatedHost(emulator, EmulatedHost.NetworkType.OVERLAY, "overlay", "win-a");
        host.syncNetwork(List.of(new EmulatedHost.Node("win-a", "10.244.1.0/24", "192.168.1.11"),
                new EmulatedHost.Node("win-b", "10.244.2.0/24", "192.168.1.12")));
        host.syncLocalEndpoints(localEndpoints);
        emulator.setVariants(variants);
        return emulator;
    }

    private static ApplyResult sync(HnsDataplane dp, DesiredState desired) {
        Plan plan = PlanCalculator.plan(desired, dp.observe(), dp.journal().ownership(), dp.modifySupported());
        return dp.apply(plan);
    }

    /**
     * Syncs, one sync period apart (so that a step that failed is retried), until a full plan has nothing left to do;
     * returns how many syncs it took (at most 4 allowed).
     */
    private int converge(HnsDataplane dp, DesiredState desired) {
        for (int syncs = 1; syncs <= 4; syncs++) {
            sync(dp, desired);
            nanos.addAndGet(SYNC_PERIOD.toNanos());
            Plan check = PlanCalculator.plan(desired, dp.observe(), dp.journal().ownership(), dp.modifySupported());
            if (check.steps().isEmpty()) {
                return syncs;
            }
        }
        throw new AssertionError("no convergence in 4 syncs; still planned: " + PlanCalculator.plan(desired,
                dp.observe(), dp.journal().ownership(), dp.modifySupported()).steps());
    }

    private static void assertNothingLeaked(HnsEmulator emulator, HnsDataplane dp, DesiredState desired) {
        OwnershipJournal journal = dp.journal();
        List<HostComputeLoadBalancer> lbs = emulator.listLoadBalancers();
        assertThat(lbs).as("one load balancer per desired one").hasSize(desired.loadBalancers().size());
        for (HostComputeLoadBalancer lb : lbs) {
            assertThat(journal.ownsLoadBalancer(lb.id())).as("load balancer %s is owned", lb.id()).isTrue();
        }
        String network = emulator.getNetworkByName("overlay").orElseThrow().id();
        emulator.listEndpoints(network).stream().filter(e -> e.isRemote()).forEach(e -> assertThat(
                journal.ownsRemoteEndpoint(e.id())).as("remote endpoint %s is owned", e.id()).isTrue());
        assertThat(journal.remoteEndpointCount()).isEqualTo(desired.remoteEndpoints().size());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("variants")
    void convergesWritesNothingWhenNothingChangesAndOnlyForAChange(Set<HnsVariant> variants) {
        HnsEmulator emulator = host(variants);
        HnsDataplane dp = dataplane(emulator);
        DesiredState desired = desired(SERVICES, 0);
        assertThat(converge(dp, desired)).isLessThanOrEqualTo(3);
        assertNothingLeaked(emulator, dp, desired);

        emulator.journal().reset();
        assertThat(sync(dp, desired).writes()).as("no-op resync").isZero();
        HnsDataplane restarted = dataplane(emulator);
        assertThat(sync(restarted, desired).writes()).as("restart with the journal").isZero();

        // One pod of one Service moves: a remote endpoint is created, one deleted, one load balancer updated (a
        // modify, or a delete and a create); two syncs at most when HNS keeps old backends on a modify.
        DesiredState changed = desired(SERVICES, 3);
        emulator.journal().reset();
        converge(restarted, changed);
        assertThat(emulator.journal().writes()).as("writes for one endpoint change").isBetween(3, 6);
        assertNothingLeaked(emulator, restarted, changed);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("variants")
    void aSyncCutShortByACrashLeaksNothingAfterTheRestart(Set<HnsVariant> variants) {
        HnsEmulator emulator = host(variants);
        AtomicInteger creates = new AtomicInteger();
        HnsClient dying = new ForwardingHnsClient(emulator) {
            @Override
            public HostComputeLoadBalancer createLoadBalancer(HostComputeLoadBalancer settings) {
                HostComputeLoadBalancer created = super.createLoadBalancer(settings);
                if (creates.incrementAndGet() == 3) {
                    throw new IllegalStateException("killed"); // the process dies right after HNS created it
                }
                return created;
            }
        };
        DesiredState desired = desired(SERVICES, 0);
        try {
            sync(dataplane(dying), desired);
        } catch (IllegalStateException killed) {
            // as kill -9: nothing after this point ran
        }

        // Services 5 and 6 are deleted while the agent is down.
        DesiredState fewer = desired(4, 0);
        HnsDataplane restarted = dataplane(emulator);
        converge(restarted, fewer);
        assertNothingLeaked(emulator, restarted, fewer);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("variants")
    void aFreshOverlayHostWithoutTheSourceVipEndpointConvergesFromTheFirstSync(Set<HnsVariant> variants) {
        HnsEmulator emulator = host(variants, Set.of("10.244.1.5"));
        HnsDataplane dp = dataplane(emulator);
        DesiredState desired = desired(SERVICES, 0);

        // As the sync loop does it: observe, make sure the source VIP endpoint exists, plan, apply.
        dp.observe();
        assertThat(dp.ensureSourceVipEndpoint("10.244.1.2", "00-15-5d-01-01-0b")).isTrue();
        Plan plan = PlanCalculator.plan(desired, dp.observe(), dp.journal().ownership(), dp.modifySupported());
        ApplyResult first = dp.apply(plan);
        assertThat(first.failures()).as("the first sync programs everything").isEmpty();
        assertThat(converge(dp, desired)).isLessThanOrEqualTo(2);
        assertNothingLeaked(emulator, dp, desired);

        String network = emulator.getNetworkByName("overlay").orElseThrow().id();
        assertThat(emulator.listEndpoints(network)).filteredOn(e -> e.ipAddresses().contains("10.244.1.2"))
                .singleElement().matches(e -> !e.isRemote(), "a local endpoint");
        dp.observe();
        assertThat(dp.ensureSourceVipEndpoint("10.244.1.2", "00-15-5d-01-01-0b")).as("exists now").isFalse();
        Path learnt = stateDir.resolve(IdChoice.FILE_NAME);
        if (variants.contains(HnsVariant.IDS_REJECTED) && !variants.contains(HnsVariant.IDS_IGNORED)) {
            assertThat(IdChoice.read(learnt)).get().asString().contains("refuses caller-chosen IDs")
                    .contains("0x80070057 E_INVALIDARG for an endpoint (source VIP 10.244.1.2)");
        } else if (variants.isEmpty()) {
            assertThat(learnt).doesNotExist();
        }
    }
}
