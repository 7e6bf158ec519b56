package io.winproxy.agent.bench;

import io.winproxy.agent.sync.SyncReport;
import io.winproxy.hns.HnsClient;
import io.winproxy.hns.emulator.CallJournal;
import io.winproxy.hns.emulator.HnsCall;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.DesiredRemoteEndpoint;
import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.model.EndpointSliceInfo;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * The five scenarios of the scale benchmark for one cluster size on one emulated HNS, in order on the same host:
 * first sync, no-op (periodic) resync, one endpoint change, restart with the ownership journal, restart without it.
 * Each is one sync of the real loop; its cost is read from the emulator's call journal (reset just before the sync),
 * the client's native-call listener and the {@link HnsClientTap}.
 */
final class ScaleRun {
    static final Duration MIN_SYNC_PERIOD = Duration.ofSeconds(1);
    static final Duration SYNC_PERIOD = Duration.ofSeconds(30);
    /** One enumerate per kind: networks, endpoints, load balancers. */
    static final int ENUMERATES = 3;
    /** Reads allowed on top of the enumerates and the writes when one endpoint changes. */
    static final int SPARE_READS = 10;
    /** Unmeasured repetitions of the endpoint change before the measured one (JIT warm-up for its timings). */
    static final int WARM_CHANGES = 5;
    /** The CPU target for policy + plan of a one-endpoint change at 10,000 Services. */
    static final int POLICY_AND_PLAN_MILLIS = 20;

    private final ScaleCluster cluster;
    private final EchoPreset profile;
    private final int driftBudget;
    private final Consumer<ScenarioResult> onResult;
    private String scenario = "set-up";

    private HnsEmulator hns;
    private NativeCallCounter listener;
    private HnsClientTap tap;
    private HnsClient client;
    private Path stateDir;
    /** The running agent; a field so that the heap measured after a sync includes everything it keeps. */
    private BenchAgent agent;
    private boolean endpointFlipped;

    /**
     * @param driftBudget native calls a no-op resync may spend beyond the enumerates (network re-read included)
     * @param onResult    told of each scenario as soon as it is measured
     */
    ScaleRun(ScaleCluster cluster, EchoPreset profile, int driftBudget, Consumer<ScenarioResult> onResult) {
        this.cluster = cluster;
        this.profile = profile;
        this.driftBudget = driftBudget;
        this.onResult = onResult;
    }

    /** The scenario running now (or the last one started), for reporting a failure. */
    String scenario() {
        return scenario;
    }

    void run() throws IOException {
        stateDir = Files.createTempDirectory("winproxy-scale-");
        try {
            setUpHost();
            firstSync();
            noOpResync();
            oneEndpointChange();
            restart(true);
            restart(false);
        } finally {
            if (agent != null) {
                agent.stop();
            }
            agent = null;
            client = null;
            tap = null;
            hns = null;
            deleteFiles(stateDir, true);
        }
    }

    private void setUpHost() {
        hns = profile.emulator();
        listener = new NativeCallCounter();
        hns.setNativeCallListener(listener);
        cluster.setUpHost(hns);
        tap = new HnsClientTap(hns);
        client = tap.client();
    }

    /** A new agent on the same host and state directory, fed this node, every Service and every slice. */
    private BenchAgent startAgent() {
        // The budget counts native calls: the network re-read (open, query, close), then 3 per drift read.
        BenchAgent a = new BenchAgent(client, stateDir, MIN_SYNC_PERIOD, SYNC_PERIOD, Math.max(0, (driftBudget - 3) / 3));
        a.nodeListed(cluster.thisNode());
        for (int i = 0; i < cluster.services(); i++) {
            a.serviceAdded(cluster.service(i));
        }
        a.servicesListed();
        int[] changed = cluster.changedEndpoint();
        for (int i = 0; i < cluster.services(); i++) {
            a.sliceAdded(cluster.slice(i, endpointFlipped && i == changed[0] ? changed[1] : -1));
        }
        a.slicesListed();
        return a;
    }

    private void firstSync() {
        scenario = "first sync";
        agent = startAgent();
        Measured m = measure(agent::nextSync);
        Map<String, String> notes = m.notes();
        notes.put("native calls without local endpoint reads (3 each)", num(m.total() - 3L * m.localReads()));
        record(m, notes, List.of(new Target("native calls", m.total(), 3L * m.created() + 10,
                "3 x " + num(m.created()) + " created + 10")));
    }

    private void noOpResync() {
        scenario = "no-op resync";
        Measured m = measure(agent::nextSync);
        record(m, m.notes(), List.of(
                new Target("native calls", m.total(), ENUMERATES + driftBudget,
                        ENUMERATES + " enumerates + drift budget " + driftBudget),
                new Target("writes", m.writes(), 0, "none")));
    }

    private void oneEndpointChange() {
        scenario = "one endpoint change";
        int[] changed = cluster.changedEndpoint();
        EndpointSliceInfo previous = cluster.slice(changed[0], -1);
        EndpointSliceInfo current = cluster.slice(changed[0], changed[1]);
        // Unmeasured: the same change made and undone a few times, so that the measured sync runs compiled code
        // (the counts of one sync do not depend on it; its timings do).
        for (int i = 0; i < WARM_CHANGES; i++) {
            agent.sliceUpdated(previous, current);
            agent.nextSync();
            agent.sliceUpdated(current, previous);
            agent.nextSync();
        }
        SyncReport before = agent.lastSync();
        endpointFlipped = true;
        agent.sliceUpdated(previous, current);
        Measured m = measure(agent::nextSync);
        Change change = Change.between(before.snapshot().desired(), m.report().snapshot().desired());
        Map<String, String> notes = m.notes();
        notes.put("changed objects", change.description());
        // Wall clock of the sync thread after warm-up; on a loaded machine it can be noisy, call counts are not.
        long policyAndPlan = m.report().timings().policyAndPlan().toMillis();
        record(m, notes, List.of(new Target("native calls", m.total(),
                ENUMERATES + change.writeCalls() + SPARE_READS, ENUMERATES + " enumerates + " + change.writeCalls()
                + " write calls for the changed objects + " + SPARE_READS + " reads"),
                new Target("policy and plan ms", policyAndPlan, POLICY_AND_PLAN_MILLIS,
                        "the desired state and the plan of the change")));
    }

    private void restart(boolean withJournal) {
        scenario = withJournal ? "restart with journal" : "restart without journal";
        HostObjects onHost = HostObjects.read(hns);
        agent.stop();
        agent = null;
        if (!withJournal) {
            deleteFiles(stateDir, false);
        }
        agent = startAgent();
        Measured m = measure(agent::nextSync);
        Map<String, String> notes = m.notes();
        int ownedReads = tap.readsOf(onHost.owned());
        notes.put("objects on the host", num(onHost.count()));
        notes.put("documents read", num(tap.documents()));
        notes.put("documents read of owned objects", num(ownedReads));
        notes.put("most reads of one object", num(tap.maxReadsOfOneObject()));
        List<Target> targets = new ArrayList<>();
        if (withJournal) {
            targets.add(new Target("document reads of owned objects", ownedReads, 0, "the journal names them"));
        } else {
            targets.add(new Target("reads of one object", tap.maxReadsOfOneObject(), 1, "one read per object"));
            targets.add(new Target("native calls", m.total(), ENUMERATES + 3L * onHost.count(),
                    ENUMERATES + " enumerates + open, query, close of " + num(onHost.count()) + " objects"));
        }
        targets.add(new Target("writes", m.writes(), 0, "none"));
        record(m, notes, targets);
    }

    /** One sync's measurements. */
    private record Measured(SyncReport report, Map<String, Integer> calls, int total, int reads, int writes,
                            int created, int localReads, long wallMillis, long hnsMillis, long heap,
                            String listener) {
        Map<String, String> notes() {
            Map<String, String> notes = new LinkedHashMap<>();
            notes.put("sync result", String.format(Locale.ROOT, "%d created, %d modified, %d deleted, %d adopted,"
                    + " %d failed, %d deferred, %d plan steps", report.result().created(), report.result().modified(),
                    report.result().deleted(), report.result().adopted(), report.result().failures().size(),
                    report.result().deferred().size(), report.plan().steps().size()));
            notes.put("local endpoint documents read", num(localReads));
            notes.put("time in the agent", String.format(Locale.ROOT,
                    "observe %d ms, policy %d ms, plan %d ms, apply %d ms", report.timings().observe().toMillis(),
                    report.timings().policy().toMillis(), report.timings().plan().toMillis(),
                    report.timings().apply().toMillis()));
            return notes;
        }
    }

    private Measured measure(Supplier<SyncReport> sync) {
        CallJournal journal = hns.journal();
        journal.reset();
        listener.reset();
        tap.reset();
        long start = System.nanoTime();
        SyncReport report = sync.get();
        long wall = (System.nanoTime() - start) / 1_000_000;
        Map<String, Integer> calls = journal.snapshot();
        int reads = journal.count(HnsCall.ENUMERATE) + journal.count(HnsCall.OPEN) + journal.count(HnsCall.QUERY)
                + journal.count(HnsCall.CLOSE);
        return new Measured(report, calls, journal.total(), reads, journal.writes(), journal.count(HnsCall.CREATE),
                tap.localEndpointReads(), wall, tap.millisInClient(), heapAfterGc(), compareListener(calls));
    }

    private String compareListener(Map<String, Integer> journaled) {
        Map<String, Integer> reported = listener.snapshot();
        if (reported.isEmpty() && !journaled.isEmpty()) {
            return "reported nothing (the client does not implement NativeCallListener yet)";
        }
        return reported.equals(journaled) ? "agrees with the journal"
                : "DIFFERS from the journal: " + num(listener.total()) + " calls " + reported;
    }

    /** Reports a scenario; every scenario also requires that no step of its sync failed or was deferred. */
    private void record(Measured m, Map<String, String> notes, List<Target> callTargets) {
        List<Target> targets = new ArrayList<>(callTargets);
        targets.add(new Target("failed or deferred steps", m.report().result().failures().size()
                + m.report().result().deferred().size(), 0, "the sync converges"));
        onResult.accept(new ScenarioResult(cluster.services(), profile, scenario, m.calls(), m.total(), m.reads(),
                m.writes(), m.created(), m.wallMillis(), m.hnsMillis(), m.heap(), notes, m.listener(), targets));
    }

    static long heapAfterGc() {
        System.gc();
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    static String num(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    /** Deletes the files under {@code dir} (the journal); with {@code self}, the directories and {@code dir} too. */
    static void deleteFiles(Path dir, boolean self) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                if (self || Files.isRegularFile(p)) {
                    Files.delete(p);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * What the host holds before a restart: the count of networks, endpoints and load balancers, and the IDs of the
     * objects winproxy owns (here every load balancer and every remote endpoint: the benchmark's host has no others).
     * Read straight from the emulator, outside any measurement.
     */
    private record HostObjects(int count, Set<UUID> owned) {
        static HostObjects read(HnsEmulator hns) {
            HostComputeNetwork network = hns.getNetworkByName(ScaleCluster.NETWORK).orElseThrow();
            Set<UUID> owned = new HashSet<>();
            int count = 1;
            for (HostComputeEndpoint ep : hns.listEndpoints(network.id())) {
                count++;
                if (ep.isRemote()) {
                    owned.add(HnsClientTap.normalize(ep.id()));
                }
            }
            for (String id : hns.listLoadBalancerIds()) {
                count++;
                owned.add(HnsClientTap.normalize(id));
            }
            return new HostObjects(count, owned);
        }
    }

    /**
     * The objects one change must write, from the desired states before and after it: a new object is a create and
     * a close, a removed one a delete, a changed one three calls (open, modify, close; or delete, create, close).
     */
    private record Change(int created, int changed, int removed) {
        static Change between(DesiredState before, DesiredState after) {
            return of(before.loadBalancers(), after.loadBalancers(), DesiredLoadBalancer::key)
                    .plus(of(before.remoteEndpoints(), after.remoteEndpoints(), DesiredRemoteEndpoint::ip));
        }

        /** The objects of one kind, matched by {@code key}, that appear, differ or disappear. */
        private static <T, K> Change of(List<T> before, List<T> after, Function<T, K> key) {
            Map<K, T> old = new HashMap<>();
            before.forEach(o -> old.put(key.apply(o), o));
            int created = 0;
            int changed = 0;
            for (T o : after) {
                T previous = old.remove(key.apply(o));
                if (previous == null) {
                    created++;
                } else if (!previous.equals(o)) {
                    changed++;
                }
            }
            return new Change(created, changed, old.size());
        }

        private Change plus(Change other) {
            return new Change(created + other.created, changed + other.changed, removed + other.removed);
        }

        int writeCalls() {
            return 2 * created + 3 * changed + removed;
        }

        String description() {
            return created + " new, " + changed + " changed, " + removed + " removed (" + writeCalls()
                    + " write calls)";
        }
    }
}
