package io.winproxy.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.winproxy.agent.config.ConfigResolver;
import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.agent.config.ProxyFlags;
import io.winproxy.agent.dataplane.OwnershipJournal;
import io.winproxy.agent.demo.EmbeddedApiServer;
import io.winproxy.agent.health.HttpProbe;
import io.winproxy.agent.kube.Eventually;
import io.winproxy.agent.logging.KlogLineParser;
import io.winproxy.agent.logging.LoggingOptions;
import io.winproxy.agent.logging.LoggingSetup;
import io.winproxy.agent.pipeline.HostMacLookup;
import io.winproxy.agent.pipeline.NodeFacts;
import io.winproxy.agent.sync.SyncReport;
import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import io.winproxy.hns.model.SchemaVersion;
import io.winproxy.policy.plan.HnsIds;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The journal faults of the chaos suite (docs/reliability.md, "Journal faults"), end to end: the real agent in-process
 * (informers, policy, plan, HnsClient) against the embedded API server and an emulated overlay host, with its state
 * directory in a temp dir. Services have their backends on the other node (win-b), so each one costs a load balancer
 * and a remote endpoint, both journaled.
 */
class JournalFaultsIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final Pattern WRITE_ERRORS =
            Pattern.compile("(?m)^winproxy_journal_write_errors_total(?:\\{[^}]*})? ([0-9.eE+]+)$");

    @TempDir
    Path stateDir;

    private final HnsEmulator hns = HnsEmulator.builder().version(new HnsVersion(15, 5)).build();
    private final EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.OVERLAY, "overlay", "win-a");
    private final List<SyncReport> reports = new CopyOnWriteArrayList<>();
    private EmbeddedApiServer server;
    private ProxyAgent agent;
    private int metricsPort;

    @BeforeEach
    void setUp() {
        server = EmbeddedApiServer.start(0);
        host.syncNetwork(List.of(new EmulatedHost.Node("win-a", "10.244.1.0/24", "192.168.1.11"),
                new EmulatedHost.Node("win-b", "10.244.2.0/24", "192.168.1.12")));
        host.ensureHostEndpoint("10.244.1.2");
        api().nodes().resource(AgentProcess.node("win-a", "10.244.1.0/24", "192.168.1.11")).create();
        metricsPort = HttpProbe.freePort();
    }

    @AfterEach
    void tearDown() throws IOException {
        stopAgent();
        server.close();
        // Scenario 1 may leave directories where the journal's files go; @TempDir removes them either way.
    }

    private KubernetesClient api() {
        return server.client();
    }

    private void startAgent(int verbosity) throws Exception {
        ProxyConfig config = ConfigResolver.resolve(ProxyFlags.parse("--hostname-override=win-a",
                "--network-name=overlay", "--source-vip=10.244.1.2", "--master=" + server.url(),
                "--healthz-bind-address=", "--metrics-bind-address=127.0.0.1:" + metricsPort,
                "--iptables-min-sync-period=100ms", "--iptables-sync-period=1s", "--v=" + verbosity), Map.of());
        reports.clear();
        agent = ProxyAgent.start(new ProxyAgent.Setup(config, NodeFacts.of(config, "overlay"), hns,
                HostMacLookup.emulated(), stateDir, null, List.of("127.0.0.1"), reports::add, null));
        Eventually.await(TIMEOUT, "first complete sync", () -> reports.stream().anyMatch(r -> r.result().complete()));
    }

    private void stopAgent() {
        if (agent != null) {
            agent.close();
            agent = null;
        }
    }

    /** Service {@code name} on ClusterIP 10.96.0.{n}:80 with one backend 10.244.2.{n}:8080 on win-b. */
    private void createService(String namespace, String name, int n) {
        api().resource(AgentHarness.service(namespace, name, "10.96.0." + n, 80, 8080)).create();
        api().resource(AgentHarness.slice(namespace, name + "-1", name, 8080, "10.244.2." + n + "@win-b")).create();
    }

    private void deleteService(String namespace, String name) {
        api().services().inNamespace(namespace).withName(name).delete();
        api().discovery().v1().endpointSlices().inNamespace(namespace).withName(name + "-1").delete();
    }

    private Set<String> vips() {
        return hns.listLoadBalancers().stream().flatMap(lb -> lb.frontendVips().stream()).collect(Collectors.toSet());
    }

    private String lbIdForVip(String vip) {
        return hns.listLoadBalancers().stream().filter(lb -> lb.frontendVips().contains(vip)).findFirst()
                .orElseThrow().id();
    }

    private Set<String> markedLoadBalancers() {
        return hns.listLoadBalancerIds().stream().filter(HnsIds::isWinproxys).map(HnsIds::normalize)
                .collect(Collectors.toSet());
    }

    private Set<String> markedRemoteEndpoints() {
        String network = hns.getNetworkByName("overlay").orElseThrow().id();
        return hns.listEndpoints(network).stream().filter(HostComputeEndpoint::isRemote).map(HostComputeEndpoint::id)
                .filter(HnsIds::isWinproxys).map(HnsIds::normalize).collect(Collectors.toSet());
    }

    /** The journal on disk, read as a restarted agent would, names exactly the marked objects HNS holds. */
    private void assertJournalOwnsExactlyTheMarkedObjects() {
        OwnershipJournal onDisk = OwnershipJournal.open(stateDir);
        assertThat(onDisk.loadBalancers().keySet().stream().map(HnsIds::normalize))
                .as("journaled load balancers").containsExactlyInAnyOrderElementsOf(markedLoadBalancers());
        assertThat(onDisk.remoteEndpoints().keySet().stream().map(HnsIds::normalize))
                .as("journaled remote endpoints").containsExactlyInAnyOrderElementsOf(markedRemoteEndpoints());
    }

    /** Converged: a complete sync that started after this call writes nothing to HNS. */
    private void awaitQuietSync() {
        int seen = reports.size();
        Eventually.await(TIMEOUT, "a complete sync with 0 HNS writes", () -> reports.stream().skip(seen)
                .anyMatch(r -> r.result().complete() && r.result().writes() == 0));
    }

    private double journalWriteErrors() {
        Matcher m = WRITE_ERRORS.matcher(HttpProbe.get(metricsPort, "/metrics").body());
        return m.find() ? Double.parseDouble(m.group(1)) : -1;
    }

    /**
     * An unwritable journal: both files are directories, so every flush fails (chmod would not stop root). Creates
     * wait, deletes go on, the metric counts; once the directories go, the create happens and the journal on disk
     * names exactly the marked objects. Without strict write-ahead the new Service's load balancer would appear while
     * the journal cannot be written (first assertion); without the deletes going on, the deleted Service's load
     * balancer would stay; without the snapshot rewrite after recovery, the fresh journal would miss records.
     */
    @Test
    void anUnwritableJournalHoldsBackCreatesButNotDeletes() throws Exception {
        createService("shop", "old", 10);
        createService("shop", "keep", 11);
        startAgent(2);
        Eventually.await(TIMEOUT, "the first load balancers", () -> vips().containsAll(Set.of("10.96.0.10",
                "10.96.0.11")));
        awaitQuietSync();
        assertThat(journalWriteErrors()).isZero();

        for (String name : List.of(OwnershipJournal.FILE_NAME, OwnershipJournal.LOG_NAME)) {
            Files.deleteIfExists(stateDir.resolve(name));
            Files.createDirectory(stateDir.resolve(name));
        }
        createService("shop", "new", 12);
        deleteService("shop", "old");
        Eventually.await(TIMEOUT, "the deleted Service's load balancer to go", () -> !vips().contains("10.96.0.10"));
        Eventually.await(TIMEOUT, "a journal write error on /metrics", () -> journalWriteErrors() > 0);
        // The new Service is in the agent's view by now (the delete after it went through); a few more syncs must
        // still not create it.
        int seen = reports.size();
        Eventually.await(TIMEOUT, "two more syncs", () -> reports.size() >= seen + 2);
        assertThat(vips()).as("no create without a journal record").doesNotContain("10.96.0.12")
                .contains("10.96.0.11");
        assertThat(reports.stream().skip(seen)).anyMatch(r -> r.result().journalBlocked());
        System.out.printf("journal faults: unwritable journal, write errors=%.0f%n", journalWriteErrors());

        for (String name : List.of(OwnershipJournal.FILE_NAME, OwnershipJournal.LOG_NAME)) {
            Files.delete(stateDir.resolve(name));
        }
        Eventually.await(TIMEOUT, "the new Service's load balancer", () -> vips().contains("10.96.0.12"));
        awaitQuietSync();
        stopAgent();
        assertJournalOwnsExactlyTheMarkedObjects();
        assertThat(markedLoadBalancers()).hasSize(2);
    }

    /**
     * A torn record (a write that stopped mid-line): appended while the agent runs, the next append cuts it back;
     * appended while it is down, the restarted agent rewrites the journal at load. Either way no record is lost and
     * no unreadable line stays. Without the cut-back the next record would be glued to the fragment and lost at the
     * next load (the journal would miss the Service created after it); without the rewrite the fragment would stay.
     */
    @Test
    void aTornRecordIsCutBackAndNoRecordIsLost() throws Exception {
        createService("shop", "a", 20);
        startAgent(2);
        Eventually.await(TIMEOUT, "the first load balancer", () -> vips().contains("10.96.0.20"));
        createService("shop", "b", 21);
        Eventually.await(TIMEOUT, "the second load balancer", () -> vips().contains("10.96.0.21"));
        awaitQuietSync();
        Path log = stateDir.resolve(OwnershipJournal.LOG_NAME);
        assertThat(log).as("the agent appends to its change log").exists();

        String fragment = "{\"id\":\"" + HnsIds.MARK + "0000-0000-000000000001\",\"kind\":\"lb\",\"lb\":{\"serv";
        Files.writeString(log, fragment, StandardOpenOption.APPEND);
        createService("shop", "c", 22);
        Eventually.await(TIMEOUT, "the third load balancer", () -> vips().contains("10.96.0.22"));
        awaitQuietSync();
        assertThat(Files.readString(log)).as("torn fragment cut back").doesNotContain(fragment);
        assertEveryLogLineReadable(log);
        stopAgent();
        assertJournalOwnsExactlyTheMarkedObjects();

        // Torn while down (a crash mid-append), a change meanwhile, a restart.
        Files.writeString(log, fragment, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        deleteService("shop", "a");
        createService("shop", "d", 23);
        startAgent(2);
        Eventually.await(TIMEOUT, "convergence after the restart",
                () -> vips().containsAll(Set.of("10.96.0.21", "10.96.0.22", "10.96.0.23"))
                        && !vips().contains("10.96.0.20"));
        awaitQuietSync();
        stopAgent();
        if (Files.exists(log)) {
            assertThat(Files.readString(log)).doesNotContain(fragment);
            assertEveryLogLineReadable(log);
        }
        assertJournalOwnsExactlyTheMarkedObjects();
        assertThat(markedLoadBalancers()).hasSize(3);
    }

    private static void assertEveryLogLineReadable(Path log) throws IOException {
        String text = Files.readString(log);
        assertThat(text.isEmpty() || text.endsWith("\n")).as("log ends with a complete record").isTrue();
        for (String line : text.lines().filter(l -> !l.isBlank()).toList()) {
            assertThat(line).startsWith("{").endsWith("}");
        }
    }

    /**
     * A journal entry naming another tool's load balancer (unmarked, a different VIP than the entry says) for a
     * Service that is gone. Without the deletion guard the restarted agent deletes it as an owned, undesired object.
     */
    @Test
    void aJournalEntryNamingAForeignObjectIsForgottenNotObeyed() throws Exception {
        createService("shop", "web", 30);
        startAgent(2);
        Eventually.await(TIMEOUT, "the load balancer", () -> vips().contains("10.96.0.30"));
        awaitQuietSync();
        String ownBackend = hns.listLoadBalancers().stream().filter(lb -> lb.frontendVips().contains("10.96.0.30"))
                .findFirst().orElseThrow().hostComputeEndpoints().get(0);
        stopAgent();

        String foreign = hns.createLoadBalancer(new HostComputeLoadBalancer(null, List.of(ownBackend), "",
                List.of("10.96.99.99"), List.of(new LoadBalancerPortMapping(6, 8080, 80, 0, 0)), SchemaVersion.V2,
                0)).id();
        assertThat(HnsIds.isWinproxys(foreign)).isFalse();
        OwnershipJournal edited = OwnershipJournal.open(stateDir);
        edited.recordLoadBalancer(foreign, "gone/old:http", "10.96.0.50:80/TCP");
        edited.flush();

        startAgent(2);
        awaitQuietSync();
        assertThat(hns.getLoadBalancer(foreign)).as("another tool's load balancer stays").isPresent();
        assertThat(vips()).contains("10.96.0.30", "10.96.99.99");
        stopAgent();
        OwnershipJournal after = OwnershipJournal.open(stateDir);
        assertThat(after.ownsLoadBalancer(foreign)).as("the entry is forgotten").isFalse();
        assertThat(after.ownsLoadBalancer(lbIdForVip("10.96.0.30"))).isTrue();
    }

    /**
     * Names with a newline, a quote, a backslash and an ANSI escape reach the agent's log only escaped: every line is
     * one klog line a parser reads, none holds a raw newline or ESC. A layout that wrote values raw would split a
     * line (the parser throws) or carry ESC. Other Services keep working. (Only the name is hostile: the client puts
     * a namespace in the request URL, which refuses a newline, and so would a real API server's validation.)
     */
    @Test
    void hostileObjectNamesAreLoggedAsOneEscapedKlogLine() throws Exception {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        String hostile = "evil\n\"quoted\\\u001b[31mred";
        try {
            LoggingSetup.configure(context, LoggingOptions.defaults().withVerbosity(4), out);
            createService("shop", "plain", 40);
            api().resource(AgentHarness.service("shop", hostile, "10.96.0.42", 80, 8080)).create();
            api().resource(AgentHarness.slice("shop", hostile + "-1", hostile, 8080, "10.244.2.42@win-b")).create();
            startAgent(4);
            Eventually.await(TIMEOUT, "the plain Service's load balancer", () -> vips().contains("10.96.0.40"));
            createService("shop", "later", 43);
            Eventually.await(TIMEOUT, "a Service added after the hostile ones", () -> vips().contains("10.96.0.43"));
            awaitQuietSync();
            stopAgent();
        } finally {
            context.stop();
            context.reset();
            new ContextInitializer(context).autoConfig();
        }
        String text = out.toString(StandardCharsets.UTF_8);
        List<String> lines = text.lines().toList();
        assertThat(lines).isNotEmpty();
        assertThat(text).as("no raw ESC").doesNotContain("\u001b");
        lines.forEach(KlogLineParser::parse);
        assertThat(lines).as("the hostile name was logged, escaped").anyMatch(l -> l.contains("evil\\n\\\"quoted"));
        System.out.printf("journal faults: hostile names, %d log lines, all klog%n", lines.size());
    }
}
