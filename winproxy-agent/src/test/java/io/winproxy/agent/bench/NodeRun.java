package io.winproxy.agent.bench;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.winproxy.agent.cli.ProxyAgent;
import io.winproxy.agent.kube.KubeClientFactory;
import io.winproxy.agent.kube.KubeClientSettings;
import io.winproxy.agent.pipeline.HostMacLookup;
import io.winproxy.hns.emulator.HnsCall;
import io.winproxy.policy.model.EndpointSliceInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The node mode of the scale benchmark: the whole agent process path ({@link ProxyAgent}: informers through the
 * agent's own Kubernetes client, the sync loop on its real clock and thread, the dataplane and its journal) against
 * fabric8's CRUD mock server holding the cluster ({@link ScaleObjects}) and the emulated overlay host, with this
 * node's NIC MAC known ({@link HostMacLookup#emulated()}), so that the ClusterIP overlay endpoints are planned as on
 * a real node. The agent runs with its defaults (drift budget, {@code syncPeriod} 30 s, {@code minSyncPeriod} 1 s),
 * in a JVM of its own ({@link NodeAgentProcess}), as are the API server ({@link ApiServerProcess}) and the emulated host
 * ({@link HnsHostProcess}): the agent's process holds nothing of the benchmark's, so its RSS and heap are the agent's.
 *
 * <p>Scenarios, in order: first sync; no-op (periodic) resync, the second after the first sync (the steady state);
 * one endpoint added to a ClusterIP Service (a new pod
 * on another node); that endpoint removed again; restart with the journal (a new agent process). A scenario is the
 * syncs its trigger causes, up to 3 s without a further sync. For each it reports native calls, the CPU time of the
 * sync thread (minus its CPU time inside the emulated HNS, which is the emulator's cost, not the agent's), the agent
 * process's CPU time, its heap after GC, and its resident set at the end and at its peak during the scenario.
 */
final class NodeRun {
    /** The agent's live heap after GC must stay below this (issue 20: -Xmx256m with headroom). */
    static final long AGENT_HEAP_TARGET = 200L * 1024 * 1024;
    /** Issue 27: the agent's RSS at 10,000 Services, steady and peak (a restart included); at 1,000 Services. */
    static final long RSS_STEADY_MIB = 256;
    static final long RSS_PEAK_MIB = 320;
    static final long RSS_STEADY_SMALL_MIB = 128;
    private static final Duration QUIET = Duration.ofSeconds(3);
    private static final int WARM_CHANGES = 3;
    /** The pod added by the endpoint change: on node 99, outside every pod the cluster already has. */
    private static final String ADDED_POD_IP = "10.199.200.1";

    private final ScaleCluster cluster;
    private final EchoPreset profile;
    private final Consumer<ScenarioResult> onResult;
    private final List<Pending> measured = new ArrayList<>();
    private String scenario = "set-up";
    /** When {@link #awaitQuiet} saw the first complete sync. */
    private long firstCompleteNanos;

    private HnsHostProcess hns;
    private Path stateDir;
    private NodeAgentProcess agent;
    private ClassDataArchive archive;

    NodeRun(ScaleCluster cluster, EchoPreset profile, Consumer<ScenarioResult> onResult) {
        this.cluster = cluster;
        this.profile = profile;
        this.onResult = onResult;
    }

    String scenario() {
        return scenario;
    }

    /** A measured scenario, reported once the run has the steady state's heap. */
    private record Pending(String scenario, Map<String, Integer> calls, int total, int reads, int writes, int created,
                           long wallMillis, long hnsMillis, long heap, Rss rss, Map<String, String> notes) {
    }

    void run() throws Exception {
        stateDir = Files.createTempDirectory("winproxy-scale-node-");
        Path archiveDir = null;
        if (Boolean.parseBoolean(System.getProperty("scale.cds", "false"))) {
            archiveDir = Files.createTempDirectory("winproxy-scale-cds-");
            archive = ClassDataArchive.build(archiveDir);
        }
        // The API server runs in a JVM of its own: its heap is not the agent's.
        try (ApiServerProcess server = ApiServerProcess.start(cluster);
             HnsHostProcess host = HnsHostProcess.start(cluster, profile);
             KubernetesClient client = new KubeClientFactory("winproxy-bench").create(
                     KubeClientSettings.forMaster(server.url()))) {
            hns = host;
            long populated = server.loadMillis();
            String url = server.url();

            scenario = "first sync";
            agent = startAgent(url);
            measure(() -> { }, Duration.ofMinutes(10), "the agent starts, lists and syncs");

            // The first periodic resync still takes the first sync's 111,000 creates into its enumerate; the
            // second is the steady state a node pays every syncPeriod.
            scenario = "warm-up";
            awaitQuiet(Duration.ofSeconds(45));
            scenario = "no-op resync";
            measure(() -> { }, Duration.ofSeconds(45), "the second periodic resync after the first sync, "
                    + "syncPeriod after the previous one (the steady state)");

            int[] changed = cluster.changedEndpoint();
            EndpointSliceInfo original = cluster.slice(changed[0], -1);
            EndpointSliceInfo grown = withAddedEndpoint(original);
            for (int i = 0; i < WARM_CHANGES; i++) {
                scenario = "warm-up";
                updateSlice(client, grown);
                awaitQuiet(Duration.ofSeconds(30));
                updateSlice(client, original);
                awaitQuiet(Duration.ofSeconds(30));
            }
            scenario = "add one endpoint";
            measure(() -> updateSlice(client, grown), Duration.ofSeconds(30),
                    "a ready pod on another node joins a ClusterIP Service's slice");
            scenario = "remove one endpoint";
            measure(() -> updateSlice(client, original), Duration.ofSeconds(30),
                    "that pod leaves the slice again");

            scenario = "restart with journal";
            agent.close();
            agent = null;
            measure(() -> agent = startAgent(url), Duration.ofMinutes(10),
                    "a new agent process on the same host and state directory");

            String options = agent.jvmOptions();
            agent.close();
            agent = null;
            long steadyHeap = -1;
            for (Pending p : measured) {
                if (p.scenario().equals("no-op resync")) {
                    steadyHeap = p.heap();
                }
            }
            for (Pending p : measured) {
                Map<String, String> notes = new LinkedHashMap<>(p.notes());
                long agentHeap = p.heap();
                notes.put("heap after GC (the agent's process)", mib(agentHeap));
                notes.put("RSS (the agent's process; the benchmark, API server and emulated host run in JVMs of their"
                        + " own)", mib(p.rss().bytes()) + " at the end, " + mib(p.rss().peakBytes())
                        + " peak during the scenario");
                notes.put("JVM options (the agent's process)", options);
                notes.put("cluster loaded into the API server in", ScaleRun.num(populated) + " ms");
                List<Target> targets = new ArrayList<>();
                targets.add(new Target("agent heap after GC (MiB)", agentHeap >> 20, AGENT_HEAP_TARGET >> 20,
                        "the agent's live heap, informer caches included"));
                boolean small = cluster.services() <= 1_000;
                if (p.rss().bytes() >= 0) {
                    targets.add(new Target("RSS at the end of the scenario (MiB)", p.rss().bytes() >> 20,
                            small ? RSS_STEADY_SMALL_MIB : RSS_STEADY_MIB, small ? "issue 27, 1,000 Services"
                            : "issue 27, 10,000 Services"));
                    targets.add(new Target("peak RSS during the scenario (MiB)", p.rss().peakBytes() >> 20,
                            RSS_PEAK_MIB, "issue 27, a restart with the journal included"));
                }
                if (p.scenario().equals("restart with journal") && steadyHeap > 0) {
                    targets.add(new Target("agent heap after the restart, % of the steady state", agentHeap * 100
                            / steadyHeap, 130, "issue 27: <= 1.3 x the no-op resync's " + mib(steadyHeap)));
                }
                onResult.accept(new ScenarioResult(cluster.services(), profile, "node: " + p.scenario(), p.calls(),
                        p.total(), p.reads(), p.writes(), p.created(), p.wallMillis(), p.hnsMillis(), p.heap(), notes,
                        "(node mode: counted from the emulator's journal)", targets));
            }
        } finally {
            if (agent != null) {
                agent.close();
            }
            agent = null;
            hns = null;
            ScaleRun.deleteFiles(stateDir, true);
            ScaleRun.deleteFiles(archiveDir, true);
        }
    }

    private NodeAgentProcess startAgent(String apiUrl) throws Exception {
        return NodeAgentProcess.start(apiUrl, hns.port(), stateDir, archive);
    }

    private static EndpointSliceInfo withAddedEndpoint(EndpointSliceInfo s) {
        List<EndpointSliceInfo.SliceEndpoint> endpoints = new ArrayList<>(s.endpoints());
        endpoints.add(new EndpointSliceInfo.SliceEndpoint(List.of(ADDED_POD_IP), true, true, false, "node-99", null,
                null, null));
        return new EndpointSliceInfo(s.namespace(), s.name(), s.serviceName(), s.addressType(), s.ports(), endpoints,
                s.lastChangeTriggerTime());
    }

    private static void updateSlice(KubernetesClient client, EndpointSliceInfo slice) {
        client.resource(ScaleObjects.slice(slice)).update();
    }

    /**
     * Waits for a first sync (up to {@code first}), for the sync that completes it, then until no sync has come for
     * {@link #QUIET}.
     */
    private List<NodeAgentProcess.Sync> awaitQuiet(Duration first) throws InterruptedException {
        List<NodeAgentProcess.Sync> out = new ArrayList<>();
        NodeAgentProcess.Sync r = agent.nextSync(first);
        if (r == null) {
            throw new IllegalStateException("no sync within " + first + " (" + scenario + ")");
        }
        out.add(r);
        // A bounded sync reports each of its parts; wait for the part that completes it, then for quiet.
        while (!r.complete()) {
            r = agent.nextSync(first);
            if (r == null) {
                throw new IllegalStateException("no complete sync within " + first + " (" + scenario + ")");
            }
            out.add(r);
        }
        firstCompleteNanos = System.nanoTime();
        while ((r = agent.nextSync(QUIET)) != null) {
            out.add(r);
        }
        return out;
    }

    /** Runs {@code trigger} and measures the syncs it causes, up to {@link #QUIET} without another. */
    private void measure(ThrowingRunnable trigger, Duration first, String what) throws Exception {
        hns.resetJournal();
        // A trigger that starts a new agent process: all of that process's CPU time and its whole peak belong to the
        // scenario.
        NodeAgentProcess before = agent;
        long[] cpuBefore = {0, -1, 0};
        if (before != null) {
            before.clearSyncs();
            before.resetPeakRss();
            before.resetTap();
            cpuBefore = before.cpu();
        }
        long start = System.nanoTime();
        trigger.run();
        List<NodeAgentProcess.Sync> syncs = awaitQuiet(first);
        long firstComplete = (firstCompleteNanos - start) / 1_000_000;
        long wall = (System.nanoTime() - start) / 1_000_000 - QUIET.toMillis();
        boolean sameProcess = agent == before;
        long[] cpuAfter = agent.cpu();
        long processCpu = (cpuAfter[0] - (sameProcess ? cpuBefore[0] : 0)) / 1_000_000;
        long cpu = (cpuAfter[2] - (sameProcess && cpuAfter[1] == cpuBefore[1] ? cpuBefore[2] : 0)) / 1_000_000;
        long[] inClient = agent.tap();
        long inHns = inClient[0];
        long cpuInHns = inClient[1];
        HnsHostProcess.JournalView journal = hns.journal();
        Rss rss = agent.rss();
        Map<String, Integer> calls = journal.snapshot();
        int reads = journal.count(HnsCall.ENUMERATE) + journal.count(HnsCall.OPEN) + journal.count(HnsCall.QUERY)
                + journal.count(HnsCall.CLOSE);
        Map<String, String> notes = new LinkedHashMap<>();
        notes.put("trigger", what);
        notes.put("trigger -> first complete sync", ScaleRun.num(firstComplete) + " ms");
        NodeAgentProcess.Sync last = syncs.get(syncs.size() - 1);
        notes.put("syncs", syncs.size() + " (last: " + last.created() + " created, " + last.modified() + " modified, "
                + last.deleted() + " deleted, " + last.failed() + " failed, " + last.deferred() + " deferred)");
        notes.put("desired objects", ScaleRun.num(last.loadBalancers()) + " load balancers, "
                + ScaleRun.num(last.remoteEndpoints()) + " remote endpoints");
        notes.put("sync thread CPU", String.format(Locale.ROOT, "%d ms, of which %d ms inside the emulated HNS:"
                + " agent %d ms", cpu, cpuInHns, Math.max(0, cpu - cpuInHns)));
        notes.put("process CPU (all threads of the agent's process" + (sameProcess ? ")" : ", its JVM's start included)"),
                processCpu + " ms");
        notes.put("time in the agent (last sync)", String.format(Locale.ROOT,
                "observe %d ms, policy %d ms, plan %d ms, apply %d ms", last.observe(), last.policy(), last.plan(),
                last.apply()));
        agent.inspect(scenario);
        measured.add(new Pending(scenario, calls, journal.total(), reads, journal.writes(),
                journal.count(HnsCall.CREATE), wall, inHns, agent.heapAfterGc(), rss, notes));
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024.0));
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }
}
