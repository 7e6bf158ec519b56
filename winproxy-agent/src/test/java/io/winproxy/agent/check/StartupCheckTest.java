package io.winproxy.agent.check;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.winproxy.agent.config.ConfigResolver;
import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.agent.config.ProxyFlags;
import io.winproxy.agent.metrics.AgentMetrics;
import io.winproxy.agent.pipeline.ClusterObjects;
import io.winproxy.agent.pipeline.HostMacLookup;
import io.winproxy.agent.pipeline.NodeFacts;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.emulator.HnsObjectKind;
import io.winproxy.hns.emulator.HnsCall;
import io.winproxy.policy.model.NodeInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import io.winproxy.agent.dataplane.ApplyResult;
import io.winproxy.agent.sync.SyncReport;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** The agent's start-up preflight on a host whose only network is the vSwitch-only {@code External}. */
class StartupCheckTest {
    private final Logger logger = (Logger) LoggerFactory.getLogger(StartupCheck.class);
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final Map<String, Integer> gauge = new ConcurrentHashMap<>();

    @TempDir
    Path dir;

    @BeforeEach
    void attach() {
        log.start();
        logger.addAppender(log);
    }

    @AfterEach
    void detach() {
        logger.detachAppender(log);
    }

    @Test
    void onlyAnExternalNetworkLogsOneFailLineWithTheFixEmitsOneNodeEventAndSetsTheGauge() throws Exception {
        HnsEmulator hns = HnsEmulator.inMemory();
        new EmulatedHost(hns, EmulatedHost.NetworkType.L2BRIDGE, "External", "win-node-1")
                .syncNetwork(List.of(new EmulatedHost.Node("win-node-1", "10.244.1.0/24", "10.0.0.11")));
        ProxyConfig config = ConfigResolver.resolve(ProxyFlags.parse("--network-name=External",
                "--hostname-override=win-node-1"), Map.of());
        Path stateDir = Files.createDirectory(dir.resolve("state"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        ClusterRead node = new ClusterRead("https://api:6443", true, new ClusterObjects.Mapped(List.of(
                new NodeInfo("win-node-1", Map.of(), List.of("10.244.1.0/24"), List.of("10.0.0.11"), null, false,
                        List.of())), List.of(), List.of()), "");
        AgentMetrics metrics = new AgentMetrics() {
            @Override
            public void checkFailures(String group, int count) {
                gauge.put(group, count);
            }
        };
        StartupCheck check = new StartupCheck(new StartupCheck.Setup(config, NodeFacts.of(config, "External"), hns,
                true, HostMacLookup.emulated(), stateDir, () -> node,
                (kind, ns, name, type, reason, message) -> events.add(kind + " " + name + " " + type + " " + reason
                        + " " + message), metrics, Clock.fixed(Instant.parse("2026-11-28T03:00:00Z"),
                ZoneOffset.UTC), null));

        check.runPreflight();

        List<ILoggingEvent> failLines = log.list.stream().filter(e -> e.getMessage().equals("Check failed")).toList();
        assertThat(failLines).singleElement().satisfies(e -> {
            assertThat(e.getLevel()).isEqualTo(Level.WARN);
            assertThat(e.getKeyValuePairs()).anySatisfy(kv -> {
                assertThat(kv.key).isEqualTo("fix");
                assertThat((String) kv.value).startsWith("set --network-name to the CNI's network");
            });
        });
        assertThat(log.list).filteredOn(e -> e.getMessage().equals("Start-up check")).singleElement();
        assertThat(events).singleElement().satisfies(e -> assertThat(e)
                .startsWith("Node win-node-1 Warning CheckFailed preflight/network: HNS network External")
                .contains("; fix: set --network-name"));
        assertThat(gauge).containsEntry("preflight", 1).doesNotContainKey("consistency");

        JsonNode written = new ObjectMapper().readTree(stateDir.resolve("check.json").toFile());
        assertThat(written.get("status").asText()).isEqualTo("FAIL");
        assertThat(written.get("checkedAt").asText()).isEqualTo("2026-11-28T03:00:00Z");
        assertThat(written.get("groups")).hasSize(5);
        assertThat(written.get("groups").get(2).get("notRun").asText()).isEqualTo("after the first sync");
    }

    @Test
    void theAgentsPreflightDeletesScratchObjectsADeadProbeLeftAndNothingElse() throws Exception {
        HnsEmulator hns = HnsEmulator.inMemory();
        EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.L2BRIDGE, "cbr0", "win-node-1");
        String network = cbr0(host);
        var pod = host.ensureLocalEndpoint("10.244.1.5");
        var other = hns.createLoadBalancer(io.winproxy.hns.model.HostComputeLoadBalancer.of(List.of(pod.id()), "",
                "10.96.0.10", new io.winproxy.hns.model.LoadBalancerPortMapping(17, 53, 53, 0, 0), 0));
        var scratchEp = hns.createEndpoint(network, ScratchObjects.endpoint(null, network,
                ScratchObjects.ENDPOINT_IP_1, null));
        hns.createLoadBalancer(ScratchObjects.loadBalancer(null, List.of(scratchEp.id()), ScratchObjects.FIRST_PORT,
                0));
        ProxyConfig config = ConfigResolver.resolve(ProxyFlags.parse("--network-name=cbr0",
                "--hostname-override=win-node-1"), Map.of());
        Path stateDir = Files.createDirectory(dir.resolve("state"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        StartupCheck check = new StartupCheck(new StartupCheck.Setup(config, NodeFacts.of(config, "cbr0"), hns, true,
                HostMacLookup.emulated(), stateDir, () -> ClusterRead.failed("https://api:6443", "refused"),
                (kind, ns, name, type, reason, message) -> events.add(message), AgentMetrics.NOOP,
                Clock.systemUTC(), null));

        check.runPreflight();

        assertThat(hns.listLoadBalancerIds()).singleElement().satisfies(id -> assertThat(id)
                .isEqualToIgnoringCase(other.id()));
        assertThat(hns.listEndpointIds(network)).singleElement().satisfies(id -> assertThat(id)
                .isEqualToIgnoringCase(pod.id()));
        assertThat(events).singleElement().satisfies(e -> assertThat(e)
                .startsWith("preflight/api-server: cannot read the cluster from https://api:6443: refused"));
    }

    @Test
    void theAgentsSweepReadsNoEndpointItCannotSuspect() throws Exception {
        HnsEmulator hns = HnsEmulator.inMemory();
        EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.L2BRIDGE, "cbr0", "win-node-1");
        String network = cbr0(host);
        for (int i = 5; i < 25; i++) {
            host.ensureLocalEndpoint("10.244.1." + i);
        }
        // a scratch endpoint a probe left under winproxy's GUID, without its load balancer
        hns.createEndpoint(network, ScratchObjects.endpoint(io.winproxy.policy.plan.HnsIds.newId(new java.util.Random(7)), network,
                ScratchObjects.ENDPOINT_IP_2, null));
        hns.journal().reset();

        List<String> deleted = ScratchObjects.sweepAtStart(hns, network, io.winproxy.policy.plan.Ownership.NONE);

        assertThat(deleted).hasSize(1);
        assertThat(hns.journal().count(HnsCall.OPEN, HnsObjectKind.ENDPOINT)).as("the 20 pods are not read")
                .isEqualTo(1);
    }

    @Test
    void onALargeHostTheStartUpConsistencyIsWhatTheFirstSyncFoundWithoutASecondReadOfTheHost() {
        ApplyResult failed = new ApplyResult(1, 0, 0, 0, 2, List.of(new ApplyResult.StepFailure(
                "create-load-balancer", "10.96.0.80:80/TCP", "default/web", "0x803B0013",
                "HCN_E_PORT_ALREADY_EXISTS")), List.of());
        List<CheckResult> found = StartupCheck.fromFirstSync(new SyncReport(1, null, null, failed, Duration.ZERO,
                null), 30_000);
        assertThat(found).singleElement().satisfies(r -> {
            assertThat(r.status()).isEqualTo(CheckStatus.FAIL);
            assertThat(r.service()).isEqualTo("default/web");
            assertThat(r.message()).contains("create-load-balancer 10.96.0.80:80/TCP failed: 0x803B0013");
        });

        List<CheckResult> clean = StartupCheck.fromFirstSync(new SyncReport(1, null, null, ApplyResult.EMPTY,
                Duration.ZERO, null), 30_000);
        assertThat(clean).singleElement().satisfies(r -> {
            assertThat(r.status()).isEqualTo(CheckStatus.PASS);
            assertThat(r.message()).contains("30000 wanted objects").contains("'winproxy check' does");
        });
    }

    /** Creates win-node-1's L2Bridge network cbr0 (pods 10.244.1.0/24, node IP 10.0.0.11) on {@code host}; its ID. */
    private static String cbr0(EmulatedHost host) {
        return host.syncNetwork(List.of(new EmulatedHost.Node("win-node-1", "10.244.1.0/24", "10.0.0.11"))).id();
    }
}
