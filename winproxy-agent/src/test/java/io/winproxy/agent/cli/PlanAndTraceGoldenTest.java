package io.winproxy.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
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

    private static JsonNode shapes(String... args) throws IOException {
        String[] all = new String[args.length + 3];
        all[0] = args[0];
        all[1] = "--manifests";
        all[2] = SyncCluster.shapes().toString();
        all[3] = "--hostname-override=win-a";
        System.arraycopy(args, 1, all, 4, args.length - 1);
        return run(all);
    }

    private static void assertTrace(JsonNode actual, String golden) throws IOException {
        assertThat(withoutExplanation(actual)).isEqualTo(withoutExplanation(golden(golden)));
    }

    @Test
    void planShapesOverlayWithHealthCheckVip() throws IOException {
        assertThat(shapes("plan", "--forward-healthcheck-vip", "-o", "json"))
                .isEqualTo(golden("planShapesOverlayWithHealthCheckVip"));
    }

    @Test
    void planShapesOverlayWithDsr() throws IOException {
        assertThat(shapes("plan", "--forward-healthcheck-vip", "--enable-dsr", "-o", "json"))
                .isEqualTo(golden("planShapesOverlayWithDsr"));
    }

    @Test
    void planShapesL2BridgeDualStackWithHealthCheckVip() throws IOException {
        assertThat(shapes("plan", "--emulated-network-type", "l2bridge", "--forward-healthcheck-vip", "-o", "json"))
                .isEqualTo(golden("planShapesL2BridgeDualStackWithHealthCheckVip"));
    }

    @Test
    void planShapesL2BridgeWithDsr() throws IOException {
        assertThat(shapes("plan", "--emulated-network-type", "l2bridge", "--enable-dsr", "-o", "json"))
                .isEqualTo(golden("planShapesL2BridgeWithDsr"));
    }

    @Test
    void everyBadInputIsAWarningNamingItsObjectAndTheOtherServicesAreProgrammed() throws IOException {
        JsonNode plan = shapes("plan", "-o", "json");
        List<String> warned = new ArrayList<>();
        plan.get("warnings").forEach(w -> warned.add(w.get("kind").asText() + " " + w.get("namespace").asText()
                + "/" + w.get("name").asText() + " " + w.get("reason").asText()));
        assertThat(warned).contains("Service bad/sctp UnsupportedProtocol", "Service bad/port-zero InvalidServicePort",
                "Service bad/bad-ip InvalidClusterIP", "EndpointSlice bad/mixed-fqdn UnsupportedAddressType",
                "EndpointSlice bad/mixed-1 InvalidEndpointAddress", "EndpointSlice bad/mixed-1 DuplicateEndpoint",
                "Service bad/v6-only IPFamilyNotSupported", "Service default/api SessionAffinityTimeoutIgnored");
        List<String> services = new ArrayList<>();
        plan.get("loadBalancers").forEach(lb -> services.add(lb.get("service").asText()));
        assertThat(services).contains("bad/mixed", "default/api", "default/web", "default/ext", "default/dual",
                "default/drain", "default/zonal", "shop/storefront", "shop/gateway")
                .doesNotContain("bad/sctp", "bad/port-zero", "bad/bad-ip", "bad/v6-only");
    }

    @Test
    void withBothTrafficPoliciesLocalThePodOnTheOtherNodeGetsNoRemoteEndpoint() throws IOException {
        JsonNode plan = shapes("plan", "--enable-dsr", "-o", "json");
        List<String> remotes = new ArrayList<>();
        plan.get("remoteEndpoints").forEach(ep -> remotes.add(ep.get("ip").asText()));
        assertThat(remotes).contains("10.244.2.50").doesNotContain("10.244.2.100");
        plan.get("loadBalancers").forEach(lb -> {
            if (lb.get("service").asText().equals("shop/local-only")) {
                assertThat(lb.get("backends").toString()).as(lb.toString()).isEqualTo("[\"10.244.1.100\"]");
                assertThat(lb.get("dsr").asBoolean()).as(lb.toString()).isTrue();
            }
        });
    }

    @Test
    void traceEtpLocalIngressReturnsDirectlyFromTheLocalBackend() throws IOException {
        assertTrace(shapes("trace", "--src", "203.0.113.7", "--dst", "203.0.113.50:443", "-o", "json"),
                "traceEtpLocalIngressReturnsDirectlyFromTheLocalBackend");
    }

    @Test
    void traceHealthCheckVipReachesTheHost() throws IOException {
        assertTrace(shapes("trace", "--forward-healthcheck-vip", "--src", "203.0.113.7", "--dst",
                "203.0.113.50:32000", "-o", "json"), "traceHealthCheckVipReachesTheHost");
    }

    @Test
    void tracePreserveDestinationIngressIsDsr() throws IOException {
        assertTrace(shapes("trace", "--src", "203.0.113.7", "--dst", "203.0.113.60:80", "-o", "json"),
                "tracePreserveDestinationIngressIsDsr");
    }

    @Test
    void traceExternalIpUdpIsSourceNatted() throws IOException {
        assertTrace(shapes("trace", "--protocol", "UDP", "--src", "203.0.113.7", "--dst", "198.51.100.40:53", "-o",
                "json"), "traceExternalIpUdpIsSourceNatted");
    }

    @Test
    void traceIpv6ClusterIpOnL2Bridge() throws IOException {
        assertTrace(shapes("trace", "--emulated-network-type", "l2bridge", "--src", "fd00:10:244:1::99", "--dst",
                "[fd00:96::70]:80", "-o", "json"), "traceIpv6ClusterIpOnL2Bridge");
    }

    @Test
    void traceClusterIpWithDsrAndClientIpAffinity() throws IOException {
        assertTrace(shapes("trace", "--enable-dsr", "--src", "10.244.1.9", "--dst", "10.96.0.20:80", "-o", "json"),
                "traceClusterIpWithDsrAndClientIpAffinity");
    }

    @Test
    void theGateErrorIsOneLineWithExitCode2() {
        CliRunner.Result r = CliRunner.run("plan", "--manifests", SyncCluster.shapes().toString(),
                "--hostname-override=win-a", "--enable-dsr", "--feature-gates=WinDSR=false");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.errLines()).isEqualTo(1);
        assertThat(r.err()).contains("WinDSR");
        assertThat(r.out()).isEmpty();
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
