package io.winproxy.agent.logging;

import static io.winproxy.agent.logging.LayoutEvents.event;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.LoggingEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonLineLayoutTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * A real component-base JSON line (a kubelet's, quoted in kubernetes-sigs/descheduler PR #412, 2020; written
     * before component-base added {@code caller}): {@code ts} in epoch milliseconds with a fraction.
     */
    private static final String REAL_KUBELET_LINE = "{\"ts\":1602507889919.717,\"msg\":\"Unable to register node with"
            + " API server\",\"v\":0,\"err\":\"Post \\\"https://master-control-plane:6443/api/v1/nodes\\\": dial tcp"
            + " 172.18.0.2:6443: connect: connection refused\"}";

    /** The keys component-base writes, in its order: ts, caller, msg, then v (info) or err, then key/values. */
    private static final List<String> HEAD_KEYS = List.of("ts", "caller", "msg");

    private static JsonLineLayout layout(int verbosity) {
        return new JsonLineLayout(new LibraryLoggers(verbosity, Map.of()));
    }

    private static List<String> keys(JsonNode node) {
        List<String> keys = new ArrayList<>();
        node.fieldNames().forEachRemaining(keys::add);
        return keys;
    }

    @Test
    void anInfoLineHasComponentBasesJsonShapeExactly() {
        Map<String, Object> kv = new LinkedHashMap<>();
        kv.put("service", "default/web");
        kv.put("endpoints", 3);
        kv.put("IPs", List.of("10.0.0.1"));
        kv.put("path", java.nio.file.Path.of("/k/x.log"));
        assertThat(layout(0).doLayout(event("io.winproxy.agent.sync.ProxySyncLoop", Level.INFO, "Service updated",
                null, kv))).isEqualTo("{\"ts\":1732351830864.1228,\"caller\":\"sync/ProxySyncLoop.java:120\","
                + "\"msg\":\"Service updated\",\"v\":0,\"service\":\"default/web\",\"endpoints\":3,"
                + "\"IPs\":[\"10.0.0.1\"],\"path\":\"/k/x.log\"}\n");
    }

    @Test
    void aRealComponentBaseLineIsReproducedFieldByField() throws IOException {
        JsonNode real = JSON.readTree(REAL_KUBELET_LINE);
        BigDecimal millis = real.get("ts").decimalValue();
        LoggingEvent e = event("io.winproxy.agent.kube.NodeStatus", Level.INFO, real.get("msg").asText(), null,
                Map.of("err", real.get("err").asText()));
        e.setInstant(Instant.ofEpochMilli(millis.longValue())
                .plusNanos(millis.remainder(BigDecimal.ONE).movePointRight(6).longValue()));
        String ours = layout(0).doLayout(e);
        assertThat(ours).endsWith("}\n").doesNotContain("\"logger\"").doesNotContain("\"stacktrace\"");
        ObjectNode parsed = (ObjectNode) JSON.readTree(ours);
        assertThat(keys(parsed).subList(0, 3)).isEqualTo(HEAD_KEYS);
        assertThat(parsed.get("caller").asText()).isEqualTo("sync/ProxySyncLoop.java:120");
        parsed.remove("caller");
        // Everything else, the ts digits included, is what component-base wrote.
        assertThat(ours.replace("\"caller\":\"sync/ProxySyncLoop.java:120\",", "").strip())
                .isEqualTo(REAL_KUBELET_LINE);
        assertThat(parsed).isEqualTo(real);
    }

    @Test
    void debugAndTraceCarryTheVerbosityThatShowsThem() throws IOException {
        assertThat(JSON.readTree(layout(0).doLayout(event("io.winproxy.x", Level.DEBUG, "d", null, Map.of())))
                .get("v").asInt()).isEqualTo(2);
        assertThat(JSON.readTree(layout(0).doLayout(event("io.winproxy.x", Level.TRACE, "t", null, Map.of())))
                .get("v").asInt()).isEqualTo(4);
        assertThat(JSON.readTree(layout(0).doLayout(event("io.fabric8.x", Level.DEBUG, "d", null, Map.of())))
                .get("v").asInt()).isEqualTo(6);
    }

    @Test
    void errorsCarryErrAndNoVerbosityNorAnyOtherKey() throws IOException {
        JsonNode line = JSON.readTree(layout(0).doLayout(event("io.winproxy.x", Level.ERROR, "Sync failed",
                new IllegalStateException("boom"), Map.of())));
        assertThat(keys(line)).containsExactly("ts", "caller", "msg", "err");
        assertThat(line.get("err").asText()).isEqualTo("java.lang.IllegalStateException: boom");
    }

    @Test
    void fromVerbosityFourTheStackTraceIsInsideErrAndTheLineStaysOne() throws IOException {
        String out = layout(4).doLayout(event("io.winproxy.x", Level.ERROR, "Sync failed",
                new IllegalStateException("boom"), Map.of()));
        assertThat(out.lines()).hasSize(1);
        JsonNode line = JSON.readTree(out);
        assertThat(keys(line)).containsExactly("ts", "caller", "msg", "err");
        assertThat(line.get("err").asText()).startsWith("java.lang.IllegalStateException: boom\n").contains("\tat ");
    }

    @Test
    void clientLibraryErrorsBelowVerbositySixHaveNoStackTrace() throws IOException {
        String out = layout(2).doLayout(event("io.fabric8.x", Level.WARN, "Exec Failure\nmore",
                new IOException("refused"), Map.of()));
        JsonNode line = JSON.readTree(out);
        assertThat(out.lines()).hasSize(1);
        assertThat(line.get("msg").asText()).isEqualTo("Exec Failure\nmore");
        assertThat(line.get("err").asText()).isEqualTo("java.io.IOException: refused");
    }

    @Test
    void hostileValuesStayOneLineAndRoundTrip() throws IOException {
        for (String hostile : KlogTextLayoutTest.HOSTILE) {
            String out = layout(0).doLayout(event("io.winproxy.x", Level.WARN, "Skipping {}", null,
                    Map.of("endpointSlice", hostile), new Object[] {hostile}));
            assertThat(out.indexOf('\n')).isEqualTo(out.length() - 1);
            assertThat(out).doesNotContain("\r", "\u001b", "\u0000");
            JsonNode line = JSON.readTree(out);
            assertThat(line.get("endpointSlice").asText()).isEqualTo(hostile.replace("\ud800", "\ufffd"));
            assertThat(line.get("msg").asText()).isEqualTo("Skipping " + hostile.replace("\ud800", "\ufffd"));
        }
    }

    /** float64(nanos)/1e6 printed shortest, as Go (and Python's repr) print it; checked with Python. */
    @Test
    void theTimeIsEpochMillisecondsAsAGoFloat() {
        assertThat(JsonLineLayout.epochMillis(Instant.parse("2024-11-23T08:50:30.500Z"))).isEqualTo("1732351830500");
        assertThat(JsonLineLayout.epochMillis(Instant.parse("2024-11-23T08:50:30Z"))).isEqualTo("1732351830000");
        assertThat(JsonLineLayout.epochMillis(Instant.parse("2024-11-23T08:50:30.000123456Z")))
                .isEqualTo("1732351830000.1233");
    }

    @Test
    void aPathValueIsPrintedAsItsTextNotAsTheListOfItsNames() {
        // A Path is an Iterable of Paths; rendered as a list it would recurse until the stack overflows.
        assertThat(layout(0).doLayout(event("io.winproxy.agent.config.ConfigFileWatcher", Level.INFO,
                "Content of the proxy server's configuration file was updated", null,
                Map.of("path", java.nio.file.Path.of("/etc/kube-proxy/config.yaml")))))
                .contains("\"path\":\"/etc/kube-proxy/config.yaml\"");
    }
}
