package io.winproxy.agent.sync;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.winproxy.agent.health.ProxierHealth;
import io.winproxy.agent.health.ProxyHealthServer;
import io.winproxy.agent.kube.EventRecorder;
import io.winproxy.agent.metrics.AgentMetrics;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.policy.desired.PolicyCalculator;
import io.winproxy.policy.desired.PolicyConfig;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.ServiceInfo;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Log hygiene: one EndpointSlice listing 480 addresses ten times each (on two ports) costs one warning line with a
 * count, and one Warning event, not one per duplicate (issue 17: ~940 lines).
 */
class RepeatedWarningsLogTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private final HnsEmulator hns = HnsEmulator.inMemory();
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final Logger syncLogger = (Logger) LoggerFactory.getLogger(ProxySyncLoop.class);
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();

    @AfterEach
    void detach() {
        syncLogger.detachAppender(log);
    }

    @Test
    void aSliceListingEveryAddressTenTimesCostsOneWarningLineWithACount() {
        log.start();
        syncLogger.addAppender(log);
        EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.L2BRIDGE, "cbr0", "win-a");
        host.syncNetwork(List.of(new EmulatedHost.Node("win-a", "10.244.1.0/24", "192.168.1.11")));
        EventRecorder recorder = (kind, ns, name, type, reason, message) ->
                events.add(type + " " + reason + " " + kind + " " + ns + "/" + name + ": " + message);
        ProxyHealthServer health = new ProxyHealthServer(null, new ProxierHealth(Duration.ofSeconds(60),
                Clock.systemUTC()), false, "win-a", AgentMetrics.NOOP, recorder, Duration.ofSeconds(1));
        VfpPolicyEngine engine = new VfpPolicyEngine(new PolicyCalculator(PolicyConfig.defaults(), List.of()),
                NodeNetworkFactory.withoutHostMac("win-a", "", "cbr0", "192.168.1.11"), AgentMetrics.NOOP,
                Instant.EPOCH);
        ProxySyncLoop loop = L2BridgeLoop.start(engine, hns, health, AgentMetrics.NOOP, recorder,
                scheduler, report -> { });
        loop.onNodeSynced();
        loop.onServicesSynced();
        loop.onEndpointSlicesSynced();
        loop.onService(null, new ServiceInfo("default", "web", "ClusterIP", List.of("10.96.0.80"), List.of("IPv4"),
                List.of(new ServiceInfo.ServicePortSpec("http", "TCP", 80, "8080", 0),
                        new ServiceInfo.ServicePortSpec("https", "TCP", 443, "8443", 0)), List.of(), List.of(),
                "None", 0, null, null, 0, null, null));
        List<EndpointSliceInfo.SliceEndpoint> endpoints = new ArrayList<>();
        for (int copy = 0; copy < 10; copy++) {
            for (int i = 0; i < 480; i++) {
                endpoints.add(new EndpointSliceInfo.SliceEndpoint(List.of("10.245." + (i / 200) + "." + (i % 200 + 1)),
                        true, null, null, "win-b", null, null, null));
            }
        }
        loop.onEndpointSlice(null, new EndpointSliceInfo("default", "web-dup", "web", "IPv4",
                List.of(new EndpointSliceInfo.SlicePort("http", "TCP", 8080),
                        new EndpointSliceInfo.SlicePort("https", "TCP", 8443)), endpoints, null));
        scheduler.advanceMillis(0);
        scheduler.advanceMillis(90_000);

        List<ILoggingEvent> warnings = log.list.stream().filter(e -> e.getLevel() == Level.WARN).toList();
        assertThat(warnings).as("warning lines: %s", warnings).hasSize(1);
        Map<String, Object> kv = warnings.get(0).getKeyValuePairs().stream()
                .collect(Collectors.toMap(p -> p.key, p -> p.value));
        assertThat(kv).containsEntry("endpointSlice", "default/web-dup").containsEntry("reason", "DuplicateEndpoint")
                .containsEntry("count", 960);
        assertThat(warnings.get(0).getFormattedMessage()).startsWith("Endpoint ");
        assertThat(events.stream().filter(e -> e.startsWith("Warning DuplicateEndpoint")).toList()).hasSize(1)
                .allSatisfy(e -> assertThat(e).endsWith("(and 959 more like it)"));
        assertThat(Set.copyOf(log.list.stream().map(e -> e.getFormattedMessage().contains("\n")).toList()))
                .containsOnly(false);
    }
}
