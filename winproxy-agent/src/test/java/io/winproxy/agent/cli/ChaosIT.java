package io.winproxy.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.winproxy.agent.dataplane.OwnershipJournal;
import io.winproxy.agent.demo.DemoKubeconfig;
import io.winproxy.agent.demo.EmbeddedApiServer;
import io.winproxy.agent.health.HttpProbe;
import io.winproxy.agent.kube.Eventually;
import io.winproxy.agent.kube.FaultInjectingDispatcher;
import io.winproxy.agent.kube.LoopbackTcpProxy;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import io.winproxy.hns.model.SchemaVersion;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chaos suite (docs/reliability.md): the real agent, as a separate process, against the embedded API (behind a
 * loopback TCP proxy and a dispatcher that answers 503/404 on demand) and an emulated overlay host in a state file,
 * through seeded faults: 10% of HNS calls failing, HNS latency, HNS restarts with and without rehydration, an API
 * outage, mixed-version 503/404 windows, kill -9 in the middle of a big sync, a truncated journal, and manifest churn
 * all along. When the faults stop, the host must converge within three sync periods to exactly what the cluster
 * asks for: {@code plan} shows no operation, every HNS load balancer and remote endpoint is a desired one or one
 * winproxy never owned (left in place), every local endpoint is still there, and the process is up.
 */
class ChaosIT {
    private static final long SEED = 20261123L;
    private static final String NETWORK = "vxlan0";
    private static final String SOURCE_VIP = "10.244.1.2";
    private static final Duration SYNC_PERIOD = Duration.ofSeconds(3);
    private static final int BASE_SERVICES = 20;
    private static final int BURST_SERVICES = 150;

    @TempDir
    Path dir;

    private final Random random = new Random(SEED);
    private final FaultInjectingDispatcher dispatcher = new FaultInjectingDispatcher();
    private final Map<String, Integer> figures = new LinkedHashMap<>();
    private EmbeddedApiServer server;
    private LoopbackTcpProxy apiProxy;
    private Path hnsState;
    private Path kubeconfig;
    private Path directKubeconfig;
    private Process agent;
    private int healthPort;
    private int metricsPort;
    private String unownedLb;
    private String unownedRemote;
    private Set<String> localEndpoints;
    private HealthWatch health;

    @BeforeEach
    void setUp() throws IOException {
        server = EmbeddedApiServer.start(0, dispatcher);
        apiProxy = new LoopbackTcpProxy(server.port()).start();
        kubeconfig = DemoKubeconfig.write(dir.resolve("kubeconfig"), apiProxy.url());
        directKubeconfig = DemoKubeconfig.write(dir.resolve("direct-kubeconfig"), server.url());
        hnsState = dir.resolve("hns.json");

        HnsEmulator hns = HnsEmulator.builder().stateFile(hnsState).seed(SEED).build();
        EmulatedHost host = AgentProcess.overlayHost(hns, NETWORK, SOURCE_VIP, "10.244.2.0/24");
        String networkId = hns.getNetworkByName(NETWORK).orElseThrow().id();
        // The CNI's pods on this node: a pool the churn draws from.
        localEndpoints = host.syncLocalEndpoints(IntStream.rangeClosed(10, 60).mapToObj(i -> "10.244.1." + i)
                .collect(Collectors.toSet())).stream().map(HostComputeEndpoint::id).collect(Collectors.toSet());
        seedUnownedObjects(hns, networkId);

        KubernetesClient api = server.client();
        api.nodes().resource(AgentProcess.node("win-a", "10.244.1.0/24", "192.168.1.11")).create();
        api.nodes().resource(AgentProcess.node("win-b", "10.244.2.0/24", "192.168.1.12")).create();
        for (int i = 0; i < BASE_SERVICES; i++) {
            createService(i);
        }
        healthPort = HttpProbe.freePort();
        metricsPort = HttpProbe.freePort();
    }

    /** Objects winproxy never owned (another tool's): winproxy must leave them in place whatever happens. */
    private void seedUnownedObjects(HnsEmulator hns, String networkId) {
        unownedRemote = hns.createEndpoint(networkId, HostComputeEndpoint.remote(networkId, "10.244.3.9",
                "02-11-0a-f4-03-09", "192.168.1.13")).id();
        unownedLb = hns.createLoadBalancer(new HostComputeLoadBalancer(null, List.of(localEndpoints.iterator().next()),
                "", List.of("10.96.99.99"), List.of(new LoadBalancerPortMapping(6, 8080, 80, 0, 0)), SchemaVersion.V2,
                0)).id();
    }

    @AfterEach
    void tearDown() throws IOException {
        if (health != null) {
            health.stop();
        }
        if (agent != null) {
            agent.destroyForcibly();
        }
        apiProxy.close();
        server.close();
        AgentProcess.keepLogs(dir, Path.of("target", "chaos-logs"));
    }

    /** Service i: ClusterIP 10.96.(i/200).(i%200+10), one local backend and one on win-b. */
    private void createService(int i) {
        String name = "svc-" + i;
        String vip = "10.96." + (1 + i / 200) + "." + (10 + i % 200);
        server.client().resource(AgentHarness.service("default", name, vip, 80, 8080)).createOr(c -> c.update());
        sliceFor(i, 10 + random.nextInt(51), 10 + random.nextInt(200));
    }

    private void sliceFor(int i, int local, int remote) {
        server.client().resource(AgentHarness.slice("default", "svc-" + i + "-1", "svc-" + i, 8080,
                "10.244.1." + local + "@win-a", "10.244.2." + remote + "@win-b")).createOr(c -> c.update());
    }

    private void deleteService(int i) {
        server.client().services().inNamespace("default").withName("svc-" + i).delete();
        server.client().discovery().v1().endpointSlices().inNamespace("default").withName("svc-" + i + "-1")
                .delete();
    }

    /** A few random edits: new backends, a deleted and re-created Service. */
    private void churn(int edits) {
        for (int e = 0; e < edits; e++) {
            int i = random.nextInt(BASE_SERVICES);
            switch (random.nextInt(3)) {
                case 0 -> sliceFor(i, 10 + random.nextInt(51), 10 + random.nextInt(200));
                case 1 -> deleteService(i);
                default -> createService(i);
            }
        }
    }

    private void startAgent(String log) throws IOException {
        agent = AgentProcess.start(dir.resolve(log), "256m",
                AgentProcess.overlayFlags(kubeconfig, NETWORK, SOURCE_VIP, hnsState),
                AgentProcess.serverFlags(healthPort, metricsPort, SYNC_PERIOD), List.of("--v=2"));
    }

    private void killAgent() throws InterruptedException {
        agent.destroyForcibly();
        assertThat(agent.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }

    private CliRunner.Result cli(String... args) {
        CliRunner.Result r = CliRunner.run(args);
        assertThat(r.exitCode()).as("%s: %s", String.join(" ", args), r.err()).isZero();
        return r;
    }

    private JsonNode plan() throws IOException {
        return AgentProcess.plan(AgentProcess.overlayFlags(directKubeconfig, NETWORK, SOURCE_VIP, hnsState));
    }

    private boolean converged() {
        try {
            JsonNode plan = plan();
            return plan != null && plan.get("operations").isEmpty();
        } catch (IOException e) {
            return false;
        }
    }

    private int loadBalancerCount() {
        return HnsEmulator.openExisting(hnsState).listLoadBalancerIds().size();
    }

    /** HNS calls the agent saw fail, by its own metric (HRESULT != 0), since it last started. */
    private int failedHnsCalls() {
        try {
            String metrics = HttpProbe.get(metricsPort, "/metrics").body();
            double sum = 0;
            for (String line : metrics.split("\n")) {
                if (line.startsWith("winproxy_hns_calls_total{") && !line.contains("code=\"0x00000000\"")
                        && !line.contains("code=\"0\"") && !line.contains("code=\"S_OK\"")) {
                    sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
            return (int) sum;
        } catch (RuntimeException e) {
            return 0;
        }
    }

    @Test
    void afterEveryFaultTheHostConvergesWithNothingLeakedAndNothingUnownedTouched() throws Exception {
        startAgent("agent-1.log");
        health = new HealthWatch(healthPort);
        Eventually.await(Duration.ofSeconds(60), "the first sync", () -> loadBalancerCount() == BASE_SERVICES + 1);

        // 1. 10% of HNS calls fail (seeded), with churn.
        cli("hns", "fault", "set", "--hns-state", hnsState.toString(), "--rate", "0.1", "--seed",
                Long.toString(SEED));
        phase("random HNS failures", Duration.ofSeconds(8), 3);
        figures.merge("HNS calls failed (seen by the agent)", failedHnsCalls(), Integer::sum);
        cli("hns", "fault", "clear", "--hns-state", hnsState.toString());

        // 2. A slow HNS.
        cli("hns", "fault", "set", "--hns-state", hnsState.toString(), "--latency", "20ms");
        phase("HNS latency", Duration.ofSeconds(5), 3);
        cli("hns", "fault", "clear", "--hns-state", hnsState.toString());

        // 3. HNS restarts: objects dropped for good, then dropped and rehydrated under their old IDs.
        cli("hns", "restart", "--hns-state", hnsState.toString());
        figures.merge("HNS restarts", 1, Integer::sum);
        phase("HNS restart", Duration.ofSeconds(5), 2);
        cli("hns", "restart", "--hns-state", hnsState.toString(), "--rehydrate-after", "2s");
        figures.merge("HNS restarts", 1, Integer::sum);
        phase("HNS restart with rehydration", Duration.ofSeconds(6), 2);

        // HNS restarts drop every load balancer and remote endpoint, the unowned ones too (HNS restored only what
        // winproxy re-creates or what it persisted); another tool puts its objects back.
        HnsEmulator restarted = HnsEmulator.openExisting(hnsState);
        seedUnownedObjects(restarted, restarted.getNetworkByName(NETWORK).orElseThrow().id());

        // 4. The API server: unreachable, then 503 and 404 windows of a mixed-version control plane.
        int unhealthyBefore = health.unhealthy();
        apiProxy.stop();
        phase("API server unreachable", Duration.ofSeconds(6), 3);
        apiProxy.start();
        dispatcher.fail(r -> "winproxy".equals(r.getHeader("User-Agent")), 503);
        phase("API server answering 503", Duration.ofSeconds(4), 2);
        dispatcher.fail(r -> "winproxy".equals(r.getHeader("User-Agent")), 404);
        phase("API server answering 404", Duration.ofSeconds(4), 2);
        dispatcher.heal();
        figures.put("API requests answered 503/404", dispatcher.faultsServed());
        health.phase("after the API faults");
        Eventually.await(Duration.ofSeconds(30), "converged after the API faults", this::converged);
        assertThat(health.unhealthy() - unhealthyBefore).as("/healthz 503 answers during API outages").isZero();

        // 5. kill -9 in the middle of a big sync (on a slow HNS, so that it lasts), then again with a truncated
        // journal.
        cli("hns", "fault", "set", "--hns-state", hnsState.toString(), "--latency", "10ms");
        int before = loadBalancerCount();
        for (int i = BASE_SERVICES; i < BASE_SERVICES + BURST_SERVICES; i++) {
            createService(i);
        }
        Eventually.await(Duration.ofSeconds(60), "the big sync under way", () -> loadBalancerCount() > before + 10);
        health.phase("kill -9 and restart");
        killAgent();
        figures.merge("kill -9", 1, Integer::sum);
        startAgent("agent-2.log");
        Eventually.await(Duration.ofSeconds(60), "the big sync under way again",
                () -> loadBalancerCount() > before + 40);
        killAgent();
        figures.merge("kill -9", 1, Integer::sum);
        truncateJournal();
        for (int i = BASE_SERVICES; i < BASE_SERVICES + BURST_SERVICES; i += 2) {
            deleteService(i);
        }
        cli("hns", "fault", "clear", "--hns-state", hnsState.toString());
        health.phase("restart after a truncated journal");
        startAgent("agent-3.log");
        churn(5);

        // The faults stop: converged within three sync periods of the restarted agent's first sync (plus the few
        // seconds a plan takes here).
        // Its first sync may be bounded (a chunk of a big plan) or whole.
        Eventually.await(Duration.ofSeconds(60), "the restarted agent's first sync", () -> logContains("agent-3.log",
                "] \"Sync complete\" sync=1 ") || logContains("agent-3.log", "] \"Sync chunk complete\" sync=1 "));
        long faultsStopped = System.nanoTime();
        Eventually.await(SYNC_PERIOD.multipliedBy(3).plusSeconds(5), "converged after the faults", this::converged);
        Duration convergence = Duration.ofNanos(System.nanoTime() - faultsStopped);
        figures.put("convergence after the last fault (ms)", (int) convergence.toMillis());

        JsonNode plan = plan();
        assertThat(plan).isNotNull();
        assertThat(plan.get("operations")).as("plan after the faults").isEmpty();
        HnsEmulator host = HnsEmulator.openExisting(hnsState);
        String networkId = host.getNetworkByName(NETWORK).orElseThrow().id();
        Set<String> lbIds = new TreeSet<>(host.listLoadBalancerIds().stream().map(String::toLowerCase).toList());
        Set<String> remotes = host.listEndpoints(networkId).stream().filter(HostComputeEndpoint::isRemote)
                .map(e -> e.id().toLowerCase()).collect(Collectors.toCollection(TreeSet::new));
        Set<String> locals = host.listEndpoints(networkId).stream().filter(e -> !e.isRemote())
                .map(e -> e.id().toLowerCase()).collect(Collectors.toSet());
        int leakedLbs = lbIds.size() - plan.get("loadBalancers").size() - 1;
        int leakedRemotes = remotes.size() - plan.get("remoteEndpoints").size() - 1;
        figures.put("objects leaked", leakedLbs + leakedRemotes);
        figures.put("/healthz 503 answers in all", health.unhealthy());
        System.out.println("chaos /healthz 503 answers by phase: " + health.byPhase());
        System.out.println("chaos figures (seed " + SEED + "): " + figures);

        assertThat(leakedLbs).as("load balancers beyond the desired ones and the unowned one").isZero();
        assertThat(leakedRemotes).as("remote endpoints beyond the desired ones and the unowned one").isZero();
        assertThat(lbIds).contains(unownedLb.toLowerCase());
        assertThat(remotes).contains(unownedRemote.toLowerCase());
        assertThat(locals).as("every local endpoint of the CNI").containsAll(localEndpoints.stream()
                .map(String::toLowerCase).toList());
        OwnershipJournal journal = OwnershipJournal.open(Path.of(hnsState + ".winproxy"));
        assertThat(journal.loadBalancers().keySet()).doesNotContain(unownedLb.toLowerCase());
        assertThat(agent.isAlive()).as("the agent process is up").isTrue();
        // /healthz answers 503 only right after a process starts, until it knows its Node object (kube-proxy's rule), never while a
        // running agent rides out HNS failures, restarts, latency or API faults.
        assertThat(health.byPhase().keySet()).as("phases with /healthz 503 answers")
                .isSubsetOf("start", "kill -9 and restart", "restart after a truncated journal");
    }

    private boolean logContains(String log, String text) {
        try {
            return Files.readString(dir.resolve(log)).contains(text);
        } catch (IOException e) {
            return false;
        }
    }

    /** Churn for {@code length}, {@code edits} random edits at a time, once a second. */
    private void phase(String name, Duration length, int edits) throws InterruptedException {
        health.phase(name);
        long end = System.nanoTime() + length.toNanos();
        while (System.nanoTime() < end) {
            churn(edits);
            Thread.sleep(1000);
        }
        figures.merge("phases", 1, Integer::sum);
        assertThat(agent.isAlive()).as("the agent survives: " + name).isTrue();
    }

    /** Cuts the journal's snapshot and log to half their length, as a crash during a write might. */
    private void truncateJournal() throws IOException {
        Path state = Path.of(hnsState + ".winproxy");
        for (String name : List.of(OwnershipJournal.FILE_NAME, OwnershipJournal.LOG_NAME)) {
            Path file = state.resolve(name);
            if (Files.exists(file)) {
                byte[] bytes = Files.readAllBytes(file);
                Files.write(file, java.util.Arrays.copyOf(bytes, bytes.length / 2));
            }
        }
        figures.merge("journals truncated", 1, Integer::sum);
    }

    /** Polls /healthz four times a second and counts 503 answers (a refused connection is a stopped process). */
    private static final class HealthWatch {
        private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();
        private final AtomicInteger unhealthy = new AtomicInteger();
        private final Map<String, Integer> byPhase = new java.util.concurrent.ConcurrentHashMap<>();
        private volatile String phase = "start";
        private final AtomicReference<Integer> last = new AtomicReference<>(0);
        private final Thread thread;
        private volatile boolean running = true;

        HealthWatch(int port) {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/healthz"))
                    .timeout(Duration.ofSeconds(2)).build();
            thread = new Thread(() -> {
                while (running) {
                    try {
                        int code = http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
                        last.set(code);
                        if (code == 503) {
                            unhealthy.incrementAndGet();
                            byPhase.merge(phase, 1, Integer::sum);
                        }
                    } catch (IOException e) {
                        last.set(0);
                    } catch (InterruptedException e) {
                        return;
                    }
                    try {
                        Thread.sleep(250);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "chaos-health-watch");
            thread.setDaemon(true);
            thread.start();
        }

        int unhealthy() {
            return unhealthy.get();
        }

        void phase(String name) {
            System.out.println("chaos phase " + name + " at " + java.time.Instant.now());
            phase = name;
        }

        Map<String, Integer> byPhase() {
            return Map.copyOf(byPhase);
        }

        int lastStatus() {
            return last.get();
        }

        void stop() {
            running = false;
            thread.interrupt();
        }
    }
}
