package io.winproxy.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.Test;

/**
 * {@code plan -o json} and {@code trace -o json} against golden files in {@code golden/cli/} named after the tests,
 * compared as JSON trees (the explanation lines of a trace are prose and left out of the comparison).
 */
class PlanAndTraceGoldenTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static JsonNode golden(String name) throws IOException {
        try (InputStream in = PlanAndTraceGoldenTest.class.getClassLoader()
                .getResourceAsStream("golden/cli/" + name + ".json")) {
            assertThat(in).as("golden file %s", name).isNotNull();
            return MAPPER.readTree(in);
        }
    }

    private static JsonNode run(String... args) throws IOException {
        CliRunner.Result r = CliRunner.run(args);
        assertThat(r.exitCode()).as("exit code; stderr: %s", r.err()).isZero();
        return MAPPER.readTree(r.out());
    }

    private static JsonNode withoutExplanation(JsonNode node) {
        ObjectNode copy = node.deepCopy();
        copy.remove("explanation");
        return copy;
    }

    @Test
    void planOverlayCreatesEverything() throws IOException {
        JsonNode actual = run("plan", "--manifests", SyncCluster.dir().toString(), "--hostname-override=win-a",
                "-o", "json");
        assertThat(actual).isEqualTo(golden("planOverlayCreatesEverything"));
    }

    @Test
    void planL2BridgeWithDsr() throws IOException {
        JsonNode actual = run("plan", "--manifests", SyncCluster.dir().toString(), "--hostname-override=win-a",
                "--emulated-network-type", "l2bridge", "--enable-dsr", "-o", "json");
        assertThat(actual).isEqualTo(golden("planL2BridgeWithDsr"));
    }

    @Test
    void traceClusterIpFromALocalPod() throws IOException {
        JsonNode actual = run("trace", "--manifests", SyncCluster.dir().toString(), "--hostname-override=win-a",
                "--src", "10.244.1.9", "--dst", "10.96.0.80:80", "-o", "json");
        assertThat(withoutExplanation(actual)).isEqualTo(withoutExplanation(golden("traceClusterIpFromALocalPod")));
    }

    @Test
    void traceNodePortFromOutside() throws IOException {
        JsonNode actual = run("trace", "--manifests", SyncCluster.dir().toString(), "--hostname-override=win-a",
                "--src", "203.0.113.7", "--dst", "192.168.1.11:30080", "-o", "json");
        assertThat(withoutExplanation(actual)).isEqualTo(withoutExplanation(golden("traceNodePortFromOutside")));
    }

    @Test
    void traceUnknownVipHasNoPolicy() throws IOException {
        JsonNode actual = run("trace", "--manifests", SyncCluster.dir().toString(), "--hostname-override=win-a",
                "--src", "10.244.1.9", "--dst", "10.96.0.99:80", "-o", "json");
        assertThat(withoutExplanation(actual)).isEqualTo(withoutExplanation(golden("traceUnknownVipHasNoPolicy")));
    }

    @Test
    void theTextPlanListsTheOperations() {
        CliRunner.Result r = CliRunner.run("plan", "--manifests", SyncCluster.dir().toString(),
                "--hostname-override=win-a");
        assertThat(r.exitCode()).isZero();
        assertThat(r.out()).contains("10.96.0.80:80/TCP").contains("create-load-balancer")
                .contains("default/web:http");
    }
}
