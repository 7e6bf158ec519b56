package io.winproxy.agent.bench;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.winproxy.agent.cli.ProxyAgent;
import io.winproxy.agent.config.ConfigResolver;
import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.agent.config.ProxyFlags;
import io.winproxy.agent.kube.KubeClientFactory;
import io.winproxy.agent.kube.KubeClientSettings;
import io.winproxy.agent.pipeline.HostMacLookup;
import io.winproxy.agent.pipeline.NodeFacts;
import io.winproxy.agent.sync.SyncReport;
import io.winproxy.hns.emulator.HnsCall;
import io.winproxy.policy.model.EndpointSliceInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The node mode of the scale benchmark: the whole agent process path ({@link ProxyAgent}: informers through the
 * agent's own Kubernetes client, the sync loop on its real clock and thread, the dataplane and its journal) against
 * fabric8's CRUD mock server holding the cluster ({@link ScaleObjects}) and the emulated overlay host, with this
 * node's NIC MAC known ({@link HostMacLookup#emulated()}), so that the ClusterIP overlay endpoints are planned as on
 * a real node. The agent runs with its defaults (drift budget, {@code syncPeriod} 30 s, {@code minSyncPeriod} 1 s).
 *
 * <p>Scenarios, in order: first sync; no-op (periodic) resync, the second after the first sync (the steady state);
 * one endpoint added to a ClusterIP Service (a new pod
 * on another node); that endpoint removed again; restart with the journal. A scenario is the syncs its trigger
 * causes, up to 3 s without a further sync. For each it reports native calls, the CPU time of the sync thread
 * (minus its CPU time inside the emulated HNS, which is the emulator's cost, not the agent's), the process CPU time, and
 * the heap after GC of the whole process and of the agent alone: the agent's share is the heap after GC with the
 * agent running minus the heap after GC once it is stopped and dropped, with the API server and the host unchanged.
 */
final class NodeRun {
    /** The agent's live heap after GC must stay below this (issue 20: -Xmx256m with headroom). */
    static final long AGENT_HEAP_TARGET = 200L * 1024 * 1024;
    /** Issue 27: the agent's RSS at 10,000 Services, steady and peak (a restart included); at 1,000 Services. */
    static final long RSS_STEADY_MIB = 256;
    static final long RSS_PEAK_MIB = 320;
    static final long RSS_STEADY_SMALL_MIB = 128;
    private static final String SYNC_THREAD = "winproxy-sync";
    private static final Duration QUIET = Duration.ofSeconds(3);
    private static final int WARM_CHANGES = 3;
    /** The pod added by the endpoint change: on node 99, outside every pod the cluster already has. */
    private static final String ADDED_POD_IP = "10.199.200.1";

    private final ScaleCluster cluster;
    private final EchoPreset profile;
    private final Consumer<ScenarioResult> onResult;
    private final BlockingQueue<SyncReport> reports = new LinkedBlockingQueue<>();
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private final List<Pending> measured = new ArrayList<>();
    private String scenario = "set-up";
    /** When {@link #awaitQuiet} saw the first complete sync. */
    private long firstCompleteNanos;

    private HnsHostProcess hns;
    private HnsClientTap tap;
    private Path stateDir;
    private ProxyAgent agent;

    NodeRun(ScaleCluster cluster, EchoPreset profile, Consumer<ScenarioResult> onResult) {
        this.cluster = cluster;
        this.profile = profile;
        this.onResult = onResult;
    }

    String scenario() {
        return scenario;
    }

    /** A measured scenario whose agent heap is known only once the agent is gone. */
    private record Pending(String scenario, Map<String, Integer> calls, int total, int reads, int writes, int created,
                           long wallMillis, long hnsMillis, long heap, Rss rss, Map<String, String> notes) {
    }

    void run() throws Exception {
        stateDir = Files.createTempDirectory("winproxy-scale-node-");
        // The API server runs in a JVM of its own: its heap is not the agent's.
        try (ApiServerProcess server = ApiServerProcess.start(cluster);
             HnsHostProcess host = HnsHostProcess.start(cluster, profile);
             KubernetesClient client = new KubeClientFactory("winproxy-bench").create(
                     KubeClientSettings.forMaster(server.url()))) {
            hns = host;
            tap = new HnsClientTap(host.client());
            Rss.resetPeak();
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

            scenario = "agent stopped";
            agent.close();
            agent = null;
            reports.clear();
            long withoutAgent = ScaleRun.heapAfterGc();
            printHistogram(scenario);
            dumpHeap(scenario);
            long steadyHeap = -1;
            for (Pending p : measured) {
                if (p.scenario().equals("no-op resync")) {
                    steadyHeap = p.heap() - withoutAgent;
                }
            }
            for (Pending p : measured) {
                Map<String, String> notes = new LinkedHashMap<>(p.notes());
                long agentHeap = p.heap() - withoutAgent;
                notes.put("heap after GC: agent alone", mib(agentHeap) + " (process " + mib(p.heap())
                        + " minus " + mib(withoutAgent) + " once the agent is stopped: the benchmark's own share)");
                notes.put("RSS (the agent's process; API server and emulated host run in JVMs of their own)",
                        mib(p.rss().bytes()) + " at the end, " + mib(p.rss().peakBytes()) + " peak during the scenario");
                notes.put("JVM options", String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
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
            tap = null;
            ScaleRun.deleteFiles(stateDir, true);
        }
    }

    private ProxyAgent startAgent(String apiUrl) throws Exception {
        ProxyConfig config = ConfigResolver.resolve(ProxyFlags.parse("--hostname-override=" + ScaleCluster.THIS_NODE,
                "--network-name=" + ScaleCluster.NETWORK, "--feature-gates=WinOverlay=true",
                "--source-vip=" + ScaleCluster.SOURCE_VIP, "--master=" + apiUrl, "--healthz-bind-address=",
                "--metrics-bind-address="), Map.of());
        return ProxyAgent.start(new ProxyAgent.Setup(config, NodeFacts.of(config, ScaleCluster.NETWORK),
                tap.client(), HostMacLookup.emulated(), stateDir, null, List.of(), reports::add, null));
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
    private List<SyncReport> awaitQuiet(Duration first) throws InterruptedException {
        List<SyncReport> out = new ArrayList<>();
        SyncReport r = reports.poll(first.toMillis(), TimeUnit.MILLISECONDS);
        if (r == null) {
            throw new IllegalStateException("no sync within " + first + " (" + scenario + ")");
        }
        out.add(r);
        // A bounded sync reports each of its parts; wait for the part that completes it, then for quiet.
        while (!r.result().complete()) {
            r = reports.poll(first.toMillis(), TimeUnit.MILLISECONDS);
            if (r == null) {
                throw new IllegalStateException("no complete sync within " + first + " (" + scenario + ")");
            }
            out.add(r);
        }
        firstCompleteNanos = System.nanoTime();
        while ((r = reports.poll(QUIET.toMillis(), TimeUnit.MILLISECONDS)) != null) {
            out.add(r);
        }
        return out;
    }

    /** Runs {@code trigger} and measures the syncs it causes, up to {@link #QUIET} without another. */
    private void measure(ThrowingRunnable trigger, Duration first, String what) throws Exception {
        reports.clear();
        hns.resetJournal();
        Rss.resetPeak();
        tap.reset();
        long[] threadBefore = syncThread();
        long processBefore = os.getProcessCpuTime();
        long start = System.nanoTime();
        trigger.run();
        List<SyncReport> syncs = awaitQuiet(first);
        long firstComplete = (firstCompleteNanos - start) / 1_000_000;
        long wall = (System.nanoTime() - start) / 1_000_000 - QUIET.toMillis();
        long processCpu = (os.getProcessCpuTime() - processBefore) / 1_000_000;
        long[] threadAfter = syncThread();
        // A restarted agent has a new sync thread: all of its CPU time belongs to the scenario.
        long cpu = (threadAfter[1] - (threadAfter[0] == threadBefore[0] ? threadBefore[1] : 0)) / 1_000_000;
        long inHns = tap.millisInClient();
        long cpuInHns = tap.cpuMillisInClient();
        HnsHostProcess.JournalView journal = hns.journal();
        Rss rss = Rss.now();
        Map<String, Integer> calls = journal.snapshot();
        int reads = journal.count(HnsCall.ENUMERATE) + journal.count(HnsCall.OPEN) + journal.count(HnsCall.QUERY)
                + journal.count(HnsCall.CLOSE);
        Map<String, String> notes = new LinkedHashMap<>();
        notes.put("trigger", what);
        notes.put("trigger -> first complete sync", ScaleRun.num(firstComplete) + " ms");
        SyncReport last = syncs.get(syncs.size() - 1);
        notes.put("syncs", syncs.size() + " (last: " + last.result().created() + " created, "
                + last.result().modified() + " modified, " + last.result().deleted() + " deleted, "
                + last.result().failures().size() + " failed, " + last.result().deferred().size() + " deferred)");
        notes.put("desired objects", ScaleRun.num(last.snapshot().desired().loadBalancers().size())
                + " load balancers, " + ScaleRun.num(last.snapshot().desired().remoteEndpoints().size())
                + " remote endpoints");
        notes.put("sync thread CPU", String.format(Locale.ROOT, "%d ms, of which %d ms inside the emulated HNS:"
                + " agent %d ms", cpu, cpuInHns, Math.max(0, cpu - cpuInHns)));
        notes.put("process CPU (all threads of the agent's process)", processCpu + " ms");
        notes.put("time in the agent (last sync)", String.format(Locale.ROOT,
                "observe %d ms, policy %d ms, plan %d ms, apply %d ms", last.timings().observe().toMillis(),
                last.timings().policy().toMillis(), last.timings().plan().toMillis(),
                last.timings().apply().toMillis()));
        // The reports hold the sync's plan and snapshot; the agent does not keep them, so neither may the heap figure.
        syncs = null;
        last = null;
        printHistogram(scenario);
        printNativeMemory(scenario);
        dumpHeap(scenario);
        measured.add(new Pending(scenario, calls, journal.total(), reads, journal.writes(),
                journal.count(HnsCall.CREATE), wall, inHns, ScaleRun.heapAfterGc(), rss, notes));
    }

    /** The agent's live sync thread as {@code {id, CPU nanoseconds}}; {@code {-1, 0}} when there is none. */
    private long[] syncThread() {
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && SYNC_THREAD.equals(info.getThreadName())) {
                long t = threads.getThreadCpuTime(info.getThreadId());
                if (t >= 0) {
                    return new long[] {info.getThreadId(), t};
                }
            }
        }
        return new long[] {-1, 0};
    }

    /**
     * With {@code -Dscale.histogram=N}, prints the N classes holding the most live heap (a full GC first), as
     * {@code jcmd PID GC.class_histogram} does; for finding what a scenario's heap is made of.
     */
    private static void printHistogram(String when) {
        int top = Integer.getInteger("scale.histogram", 0);
        if (top <= 0) {
            return;
        }
        try {
            Object text = ManagementFactory.getPlatformMBeanServer().invoke(
                    new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                    new Object[] {new String[0]}, new String[] {String[].class.getName()});
            String[] lines = String.valueOf(text).split("\n");
            System.out.println("class histogram, " + when + ":");
            for (int i = 0; i < Math.min(lines.length, top + 3); i++) {
                System.out.println(lines[i]);
            }
            System.out.println(lines[lines.length - 1]);
            System.out.println("live threads: " + Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
                    .sorted().toList());
        } catch (javax.management.JMException e) {
            System.out.println("class histogram unavailable: " + e);
        }
    }

    /**
     * With {@code -Dscale.heapDump=DIR}, writes the live heap (a full GC first) to {@code DIR/<scenario>.hprof}, as
     * {@code jcmd PID GC.heap_dump} does: for finding which objects hold what the histogram counts.
     */
    private static void dumpHeap(String when) {
        String dir = System.getProperty("scale.heapDump", "");
        if (dir.isEmpty()) {
            return;
        }
        java.nio.file.Path file = java.nio.file.Path.of(dir, when.replaceAll("[^A-Za-z0-9]+", "-") + ".hprof");
        try {
            java.nio.file.Files.createDirectories(file.getParent());
            java.nio.file.Files.deleteIfExists(file);
            ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class)
                    .dumpHeap(file.toString(), true);
            System.out.println("heap dump, " + when + ": " + file);
        } catch (java.io.IOException e) {
            System.out.println("heap dump unavailable: " + e);
        }
    }

    /**
     * With {@code -XX:NativeMemoryTracking=summary} among the JVM options, prints {@code VM.native_memory summary}
     * (as {@code jcmd PID VM.native_memory summary} does): where the resident set goes, heap and native areas.
     */
    private static void printNativeMemory(String when) {
        if (ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .noneMatch(a -> a.startsWith("-XX:NativeMemoryTracking=") && !a.endsWith("=off"))) {
            return;
        }
        try {
            Object text = ManagementFactory.getPlatformMBeanServer().invoke(
                    new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
                    new Object[] {new String[] {"summary", "scale=MB"}}, new String[] {String[].class.getName()});
            System.out.println("native memory, " + when + ":");
            for (String line : String.valueOf(text).split("\n")) {
                if (line.startsWith("Total") || line.startsWith("-")) {
                    System.out.println(line.trim());
                }
            }
        } catch (javax.management.JMException e) {
            System.out.println("native memory summary unavailable: " + e);
        }
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024.0));
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }
}
