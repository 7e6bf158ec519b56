package io.winproxy.agent.logging;

import static io.winproxy.agent.logging.LayoutEvents.event;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonLineLayoutTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonLineLayout layout(int verbosity) {
        return new JsonLineLayout(new LibraryLoggers(verbosity, Map.of()));
    }

    @Test
    void anInfoLineHasKubeProxysJsonShape() {
        Map<String, Object> kv = new LinkedHashMap<>();
        kv.put("service", "default/web");
        kv.put("endpoints", 3);
        assertThat(layout(0).doLayout(event("io.winproxy.agent.sync.ProxySyncLoop", Level.INFO, "Service updated",
                null, kv))).isEqualTo("{\"ts\":1732351830.864123,\"logger\":\"io.winproxy.agent.sync.ProxySyncLoop\","
                + "\"caller\":\"ProxySyncLoop.java:120\",\"msg\":\"Service updated\",\"v\":0,"
                + "\"service\":\"default/web\",\"endpoints\":3}\n");
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
    void errorsCarryErrAndNoVerbosity() throws IOException {
        JsonNode line = JSON.readTree(layout(0).doLayout(event("io.winproxy.x", Level.ERROR, "Sync failed",
                new IllegalStateException("boom"), Map.of())));
        assertThat(line.has("v")).isFalse();
        assertThat(line.get("err").asText()).isEqualTo("java.lang.IllegalStateException: boom");
        assertThat(line.get("stacktrace").asText()).contains("\tat ");
    }

    @Test
    void clientLibraryErrorsBelowVerbositySixHaveNoStackTrace() throws IOException {
        String out = layout(2).doLayout(event("io.fabric8.x", Level.WARN, "Exec Failure\nmore",
                new IOException("refused"), Map.of()));
        JsonNode line = JSON.readTree(out);
        assertThat(out.lines()).hasSize(1);
        assertThat(line.has("stacktrace")).isFalse();
        assertThat(line.get("msg").asText()).isEqualTo("Exec Failure more");
        assertThat(line.get("err").asText()).isEqualTo("java.io.IOException: refused");
    }

    @Test
    void theTimeIsEpochSecondsWithoutTrailingZeros() {
        assertThat(JsonLineLayout.epochSeconds(Instant.parse("2024-11-23T08:50:30.500Z"))).isEqualTo("1732351830.5");
        assertThat(JsonLineLayout.epochSeconds(Instant.parse("2024-11-23T08:50:30Z"))).isEqualTo("1732351830");
    }
}
