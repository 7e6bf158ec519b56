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
import io.winproxy.hns.emulator.CallJournal;
import io.winproxy.hns.emulator.HnsCall;
import io.winproxy.hns.emulator.HnsEmulator;
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

    private HnsEmulator hns;
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
                           long wallMillis, long hnsMillis, long heap, Map<String, String> notes) {
    }

    void run() throws Exception {
        stateDir = Files.createTempDirectory("winproxy-scale-node-");
        // The API server runs in a JVM of its own: its heap is not the agent's.
        try (ApiServerProcess server = ApiServerProcess.start(cluster);
             KubernetesClient client = new KubeClientFactory("winproxy-bench").create(
                     KubeClientSettings.forMaster(server.url()))) {
            setUpHost();
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
            for (Pending p : measured) {
                Map<String, String> notes = new LinkedHashMap<>(p.notes());
                long agentHeap = p.heap() - withoutAgent;
                notes.put("heap after GC: agent alone", mib(agentHeap) + " (process " + mib(p.heap())
                        + " minus " + mib(withoutAgent) + " once the agent is stopped: API server and host)");
                notes.put("cluster loaded into the API server in", ScaleRun.num(populated) + " ms");
                List<Target> targets = new ArrayList<>();
                targets.add(new Target("agent heap after GC (MiB)", agentHeap >> 20, AGENT_HEAP_TARGET >> 20,
                        "the agent's live heap, informer caches included"));
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

    private void setUpHost() {
        hns = profile.emulator();
        cluster.setUpHost(hns);
        tap = new HnsClientTap(hns);
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
        while ((r = reports.poll(QUIET.toMillis(), TimeUnit.MILLISECONDS)) != null) {
            out.add(r);
        }
        return out;
    }

    /** Runs {@code trigger} and measures the syncs it causes, up to {@link #QUIET} without another. */
    private void measure(ThrowingRunnable trigger, Duration first, String what) throws Exception {
        reports.clear();
        CallJournal journal = hns.journal();
        journal.reset();
        tap.reset();
        long[] threadBefore = syncThread();
        long processBefore = os.getProcessCpuTime();
        long start = System.nanoTime();
        trigger.run();
        List<SyncReport> syncs = awaitQuiet(first);
        long wall = (System.nanoTime() - start) / 1_000_000 - QUIET.toMillis();
        long processCpu = (os.getProcessCpuTime() - processBefore) / 1_000_000;
        long[] threadAfter = syncThread();
        // A restarted agent has a new sync thread: all of its CPU time belongs to the scenario.
        long cpu = (threadAfter[1] - (threadAfter[0] == threadBefore[0] ? threadBefore[1] : 0)) / 1_000_000;
        long inHns = tap.millisInClient();
        long cpuInHns = tap.cpuMillisInClient();
        Map<String, Integer> calls = journal.snapshot();
        int reads = journal.count(HnsCall.ENUMERATE) + journal.count(HnsCall.OPEN) + journal.count(HnsCall.QUERY)
                + journal.count(HnsCall.CLOSE);
        Map<String, String> notes = new LinkedHashMap<>();
        notes.put("trigger", what);
        SyncReport last = syncs.get(syncs.size() - 1);
        notes.put("syncs", syncs.size() + " (last: " + last.result().created() + " created, "
                + last.result().modified() + " modified, " + last.result().deleted() + " deleted, "
                + last.result().failures().size() + " failed, " + last.result().deferred().size() + " deferred)");
        notes.put("desired objects", ScaleRun.num(last.snapshot().desired().loadBalancers().size())
                + " load balancers, " + ScaleRun.num(last.snapshot().desired().remoteEndpoints().size())
                + " remote endpoints");
        notes.put("sync thread CPU", String.format(Locale.ROOT, "%d ms, of which %d ms inside the emulated HNS:"
                + " agent %d ms", cpu, cpuInHns, Math.max(0, cpu - cpuInHns)));
        notes.put("process CPU (all threads, API server and emulator included)", processCpu + " ms");
        notes.put("time in the agent (last sync)", String.format(Locale.ROOT,
                "observe %d ms, policy %d ms, plan %d ms, apply %d ms", last.timings().observe().toMillis(),
                last.timings().policy().toMillis(), last.timings().plan().toMillis(),
                last.timings().apply().toMillis()));
        printHistogram(scenario);
        measured.add(new Pending(scenario, calls, journal.total(), reads, journal.writes(),
                journal.count(HnsCall.CREATE), wall, inHns, ScaleRun.heapAfterGc(), notes));
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

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024.0));
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }
}
