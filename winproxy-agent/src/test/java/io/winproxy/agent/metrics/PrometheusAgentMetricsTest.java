package io.winproxy.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import io.winproxy.agent.kube.ApiRequest;
import io.winproxy.policy.model.IpFamily;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PrometheusAgentMetricsTest {

    private static final List<String> SYNC_BUCKETS = List.of("0.001", "0.002", "0.004", "0.008", "0.016", "0.032",
            "0.064", "0.128", "0.256", "0.512", "1.024", "2.048", "4.096", "8.192", "16.384", "+Inf");

    private final PrometheusAgentMetrics metrics = new PrometheusAgentMetrics();

    @Test
    void exposesTheUnlabelledMetricsAtZeroFromStartUpAndLabelledOnesOnlyOnceUsed() throws IOException {
        Map<String, PrometheusTextParser.Family> families = scrape();

        // As with the Go client, a labelled vector appears only after its first use.
        assertThat(families.keySet()).containsExactlyInAnyOrder(
                "kubeproxy_sync_proxy_rules_endpoint_changes_pending",
                "kubeproxy_sync_proxy_rules_endpoint_changes_total",
                "kubeproxy_sync_proxy_rules_service_changes_pending",
                "kubeproxy_sync_proxy_rules_service_changes_total",
                "winproxy_service_ports_failed",
                "winproxy_journal_write_errors_total");
        assertThat(value(families, "kubeproxy_sync_proxy_rules_endpoint_changes_total")).isZero();
        assertThat(families.get("kubeproxy_sync_proxy_rules_endpoint_changes_total").type()).isEqualTo("counter");
        assertThat(families.get("kubeproxy_sync_proxy_rules_service_changes_pending").type()).isEqualTo("gauge");
        assertThat(families.get("kubeproxy_sync_proxy_rules_endpoint_changes_pending").help())
                .isEqualTo("[ALPHA] Pending proxy rules Endpoint changes");
    }

    @Test
    void theSyncDurationHistogramHasKubeProxysBucketsPerIpFamily() throws IOException {
        metrics.syncDuration(IpFamily.IPV4, Duration.ofMillis(10));
        metrics.syncDuration(IpFamily.IPV4, Duration.ofSeconds(20));
        metrics.syncDuration(IpFamily.IPV6, Duration.ofMillis(1));

        PrometheusTextParser.Family family = scrape().get("kubeproxy_sync_proxy_rules_duration_seconds");
        assertThat(family.type()).isEqualTo("histogram");
        assertThat(family.help()).isEqualTo("[ALPHA] SyncProxyRules latency in seconds");
        List<PrometheusTextParser.Sample> v4 = family.samples("kubeproxy_sync_proxy_rules_duration_seconds_bucket",
                Map.of("ip_family", "IPv4"));
        assertThat(v4).extracting(s -> s.labels().get("le")).containsExactlyElementsOf(SYNC_BUCKETS);
        assertThat(v4).extracting(s -> s.labels().keySet()).allSatisfy(
                keys -> assertThat(keys).containsExactlyInAnyOrder("ip_family", "le"));
        assertThat(v4.get(3).value()).isZero(); // le=0.008
        assertThat(v4.get(4).value()).isEqualTo(1); // le=0.016
        assertThat(v4.get(14).value()).isEqualTo(1); // le=16.384
        assertThat(v4.get(15).value()).isEqualTo(2); // +Inf
        assertThat(family.value("kubeproxy_sync_proxy_rules_duration_seconds_sum", Map.of("ip_family", "IPv4")))
                .isEqualTo(20.01, offset(1e-9));
        assertThat(family.value("kubeproxy_sync_proxy_rules_duration_seconds_count", Map.of("ip_family", "IPv6")))
                .isEqualTo(1);
        // 1 ms falls in the first bucket (le is inclusive).
        assertThat(family.value("kubeproxy_sync_proxy_rules_duration_seconds_bucket",
                Map.of("ip_family", "IPv6", "le", "0.001"))).isEqualTo(1);
    }

    @Test
    void theNetworkProgrammingHistogramHasUpstreams81Buckets() throws IOException {
        metrics.observeNetworkProgrammingLatency(IpFamily.IPV4, Duration.ofMillis(1700));
        metrics.observeNetworkProgrammingLatency(IpFamily.IPV4, Duration.ofSeconds(400));

        PrometheusTextParser.Family family = scrape().get("kubeproxy_network_programming_duration_seconds");
        assertThat(family.type()).isEqualTo("histogram");
        assertThat(family.help()).isEqualTo("[ALPHA] In Cluster Network Programming Latency in seconds");
        List<Double> bounds = family.samples("kubeproxy_network_programming_duration_seconds_bucket",
                Map.of("ip_family", "IPv4")).stream().map(s -> Double.parseDouble(s.labels().get("le")
                .replace("+Inf", "Infinity"))).toList();
        List<Double> expected = new ArrayList<>(List.of(0.0, 0.25, 0.5));
        IntStream.rangeClosed(1, 59).forEach(s -> expected.add((double) s));
        IntStream.iterate(60, s -> s <= 115, s -> s + 5).forEach(s -> expected.add((double) s));
        IntStream.iterate(120, s -> s <= 300, s -> s + 30).forEach(s -> expected.add((double) s));
        expected.add(Double.POSITIVE_INFINITY);
        assertThat(bounds).hasSize(82).containsExactlyElementsOf(expected);
        assertThat(family.value("kubeproxy_network_programming_duration_seconds_bucket",
                Map.of("ip_family", "IPv4", "le", "2"))).isEqualTo(1);
        assertThat(family.value("kubeproxy_network_programming_duration_seconds_bucket",
                Map.of("ip_family", "IPv4", "le", "300"))).isEqualTo(1);
        assertThat(family.value("kubeproxy_network_programming_duration_seconds_count",
                Map.of("ip_family", "IPv4"))).isEqualTo(2);
        assertThat(Arrays.stream(PrometheusAgentMetrics.networkProgrammingBuckets()).boxed().toList())
                .isEqualTo(expected.subList(0, 81));
    }

    @Test
    void timestampsAreUnixSecondsPerIpFamily() throws IOException {
        metrics.syncTimestamp(IpFamily.IPV4, Instant.parse("2024-05-01T10:00:00.5Z"));
        metrics.queuedTimestamp(IpFamily.IPV6, Instant.parse("2024-05-01T10:00:01Z"));

        Map<String, PrometheusTextParser.Family> families = scrape();
        PrometheusTextParser.Family last = families.get("kubeproxy_sync_proxy_rules_last_timestamp_seconds");
        assertThat(last.type()).isEqualTo("gauge");
        assertThat(last.help()).isEqualTo("[ALPHA] The last time proxy rules were successfully synced");
        assertThat(last.value("kubeproxy_sync_proxy_rules_last_timestamp_seconds", Map.of("ip_family", "IPv4")))
                .isEqualTo(1714557600.5);
        PrometheusTextParser.Family queued = families.get("kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds");
        assertThat(queued.value("kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds",
                Map.of("ip_family", "IPv6"))).isEqualTo(1714557601.0);
    }

    @Test
    void aRemovedFamilyLosesItsGaugesButKeepsItsHistogramsAndTheOtherFamily() throws IOException {
        for (IpFamily family : IpFamily.values()) {
            metrics.syncTimestamp(family, Instant.parse("2024-05-01T10:00:00Z"));
            metrics.queuedTimestamp(family, Instant.parse("2024-05-01T10:00:00Z"));
            metrics.noLocalEndpoints(family, 1, 2);
            metrics.syncDuration(family, Duration.ofMillis(3));
        }

        metrics.familyRemoved(IpFamily.IPV6);

        Map<String, PrometheusTextParser.Family> families = scrape();
        for (String gauge : List.of("kubeproxy_sync_proxy_rules_last_timestamp_seconds",
                "kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds",
                "kubeproxy_sync_proxy_rules_no_local_endpoints_total")) {
            assertThat(families.get(gauge).samples()).as(gauge).isNotEmpty()
                    .allSatisfy(sample -> assertThat(sample.labels()).containsEntry("ip_family", "IPv4"));
        }
        assertThat(families.get("kubeproxy_sync_proxy_rules_duration_seconds")
                .value("kubeproxy_sync_proxy_rules_duration_seconds_count", Map.of("ip_family", "IPv6")))
                .isEqualTo(1);
    }

    @Test
    void changeTrackerMetricsCountAndReportPending() throws IOException {
        metrics.serviceChangeReceived();
        metrics.serviceChangeReceived();
        metrics.serviceChangesPending(2);
        metrics.endpointChangeReceived();
        metrics.endpointChangesPending(1);
        metrics.endpointChangesPending(0);

        Map<String, PrometheusTextParser.Family> families = scrape();
        assertThat(value(families, "kubeproxy_sync_proxy_rules_service_changes_total")).isEqualTo(2);
        assertThat(families.get("kubeproxy_sync_proxy_rules_service_changes_total").type()).isEqualTo("counter");
        assertThat(value(families, "kubeproxy_sync_proxy_rules_service_changes_pending")).isEqualTo(2);
        assertThat(value(families, "kubeproxy_sync_proxy_rules_endpoint_changes_total")).isEqualTo(1);
        assertThat(value(families, "kubeproxy_sync_proxy_rules_endpoint_changes_pending")).isZero();
    }

    @Test
    void healthAndLivenessResponsesAreCountedByCode() throws IOException {
        metrics.healthzResponse(200);
        metrics.healthzResponse(503);
        metrics.healthzResponse(200);
        metrics.livezResponse(200);

        Map<String, PrometheusTextParser.Family> families = scrape();
        PrometheusTextParser.Family healthz = families.get("kubeproxy_proxy_healthz_total");
        assertThat(healthz.type()).isEqualTo("counter");
        assertThat(healthz.help()).isEqualTo("[ALPHA] Cumulative proxy healthz HTTP status");
        assertThat(healthz.value("kubeproxy_proxy_healthz_total", Map.of("code", "200"))).isEqualTo(2);
        assertThat(healthz.value("kubeproxy_proxy_healthz_total", Map.of("code", "503"))).isEqualTo(1);
        assertThat(families.get("kubeproxy_proxy_livez_total").samples()).singleElement()
                .satisfies(s -> assertThat(s.labels()).isEqualTo(Map.of("code", "200")));
    }

    @Test
    void noLocalEndpointsIsAGaugeWithUpstreamsNameAndBothTrafficPolicies() throws IOException {
        metrics.noLocalEndpoints(IpFamily.IPV4, 3, 1);
        metrics.noLocalEndpoints(IpFamily.IPV4, 2, 0);

        PrometheusTextParser.Family family = scrape().get("kubeproxy_sync_proxy_rules_no_local_endpoints_total");
        assertThat(family.type()).isEqualTo("gauge");
        assertThat(family.help())
                .isEqualTo("[ALPHA] Number of services with a Local traffic policy and no endpoints");
        assertThat(family.value(family.name(), Map.of("traffic_policy", "internal", "ip_family", "IPv4")))
                .isEqualTo(2);
        assertThat(family.value(family.name(), Map.of("traffic_policy", "external", "ip_family", "IPv4")))
                .isZero();
        assertThat(family.samples()).hasSize(2);
    }

    @Test
    void hnsCallsAreCountedByOperationAndHresultWithALatencyHistogram() throws IOException {
        metrics.hnsCall("HcnCreateLoadBalancer", 0, Duration.ofMillis(3));
        metrics.hnsCall("HcnCreateLoadBalancer", 0x803B0013, Duration.ofMillis(40));
        metrics.hnsCall("HcnEnumerateLoadBalancers", 0, Duration.ofMillis(1));

        Map<String, PrometheusTextParser.Family> families = scrape();
        PrometheusTextParser.Family calls = families.get("winproxy_hns_calls_total");
        assertThat(calls.type()).isEqualTo("counter");
        assertThat(calls.value("winproxy_hns_calls_total",
                Map.of("operation", "HcnCreateLoadBalancer", "code", "0x00000000"))).isEqualTo(1);
        assertThat(calls.value("winproxy_hns_calls_total",
                Map.of("operation", "HcnCreateLoadBalancer", "code", "0x803B0013"))).isEqualTo(1);
        assertThat(calls.samples()).hasSize(3);
        PrometheusTextParser.Family latency = families.get("winproxy_hns_call_duration_seconds");
        assertThat(latency.type()).isEqualTo("histogram");
        assertThat(latency.value("winproxy_hns_call_duration_seconds_count",
                Map.of("operation", "HcnCreateLoadBalancer"))).isEqualTo(2);
        assertThat(latency.samples("winproxy_hns_call_duration_seconds_bucket",
                Map.of("operation", "HcnEnumerateLoadBalancers"))).extracting(s -> s.labels().get("le"))
                .containsExactlyElementsOf(SYNC_BUCKETS);
    }

    @Test
    void nativeHcnCallsAreCountedByFunction() throws IOException {
        metrics.hnsNativeCall("HcnEnumerateEndpoints");
        metrics.hnsNativeCall("HcnOpenLoadBalancer");
        metrics.hnsNativeCall("HcnOpenLoadBalancer");

        PrometheusTextParser.Family calls = scrape().get("winproxy_hns_native_calls_total");
        assertThat(calls.type()).isEqualTo("counter");
        assertThat(calls.value("winproxy_hns_native_calls_total", Map.of("call", "HcnEnumerateEndpoints")))
                .isEqualTo(1);
        assertThat(calls.value("winproxy_hns_native_calls_total", Map.of("call", "HcnOpenLoadBalancer")))
                .isEqualTo(2);
    }

    @Test
    void loadBalancerOwnershipAndFailedServicePortsAreGauges() throws IOException {
        metrics.loadBalancers(7, 2);
        metrics.servicePortsFailed(1);
        metrics.loadBalancers(5, 0);

        Map<String, PrometheusTextParser.Family> families = scrape();
        PrometheusTextParser.Family lbs = families.get("winproxy_load_balancers");
        assertThat(lbs.type()).isEqualTo("gauge");
        assertThat(lbs.samples().stream().collect(Collectors.toMap(s -> s.labels().get("ownership"),
                PrometheusTextParser.Sample::value))).isEqualTo(Map.of("owned", 5.0, "unowned", 0.0));
        assertThat(value(families, "winproxy_service_ports_failed")).isEqualTo(1);
    }

    @Test
    void journalWriteErrorsCountFailedFlushesFromTheTotalsTheSyncReports() throws Exception {
        metrics.journalWriteErrors(0);
        metrics.journalWriteErrors(2);
        metrics.journalWriteErrors(2);
        metrics.journalWriteErrors(5);

        Map<String, PrometheusTextParser.Family> families = scrape();
        assertThat(families.get("winproxy_journal_write_errors_total").type()).isEqualTo("counter");
        assertThat(value(families, "winproxy_journal_write_errors_total")).isEqualTo(5);
    }

    @Test
    void exposesNoIptablesNftablesOrConntrackMetrics() throws IOException {
        metrics.syncDuration(IpFamily.IPV4, Duration.ofMillis(5));
        metrics.noLocalEndpoints(IpFamily.IPV4, 0, 0);

        assertThat(scrape().keySet()).noneMatch(name -> name.contains("iptables") || name.contains("nftables")
                || name.contains("conntrack") || name.contains("full_proxy_rules")
                || name.contains("partial_proxy_rules"));
    }

    @Test
    void theNoopMetricsAcceptEveryCall() {
        AgentMetrics noop = AgentMetrics.NOOP;
        noop.syncDuration(IpFamily.IPV4, Duration.ZERO);
        noop.hnsCall("HcnOpenLoadBalancer", 1, Duration.ZERO);
        noop.healthzResponse(200);
        assertThat(noop).isNotInstanceOf(PrometheusAgentMetrics.class);
    }

    @Test
    void bucketBoundsAreWrittenAsGoWritesThemSoDashboardsSelectingALabelFindIt() throws IOException {
        metrics.observeNetworkProgrammingLatency(IpFamily.IPV4, Duration.ofMillis(1500));
        metrics.syncDuration(IpFamily.IPV4, Duration.ofMillis(3));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        metrics.write(out);
        String text = out.toString(StandardCharsets.UTF_8);

        assertThat(text)
                .contains("kubeproxy_network_programming_duration_seconds_bucket{ip_family=\"IPv4\",le=\"0\"} 0")
                .contains("le=\"0.25\"").contains("le=\"1\"").contains("le=\"60\"").contains("le=\"300\"")
                .contains("le=\"+Inf\"").contains("le=\"0.001\"").contains("le=\"16.384\"")
                .doesNotContainPattern("le=\"-?[0-9]+\\.0\"");
    }

    private static double value(Map<String, PrometheusTextParser.Family> families, String name) {
        return families.get(name).value(name, Map.of());
    }

    @Test
    void apiRequestsAreCountedAsClientGoCountsThemAndOnlyNonWatchRequestsAreTimed() throws IOException {
        URI list = URI.create("https://10.0.0.1:6443/api/v1/services?labelSelector=x");
        URI watch = URI.create("https://10.0.0.1:6443/api/v1/services?watch=true&resourceVersion=5");
        metrics.completed(new ApiRequest("GET", list, 200, null, Duration.ofMillis(20), false));
        metrics.completed(new ApiRequest("GET", list, 503, null, Duration.ofMillis(3), false));
        metrics.completed(new ApiRequest("GET", watch, 101, null, Duration.ofMillis(9), true));
        metrics.completed(new ApiRequest("POST", list, 0, new ConnectException("refused"), Duration.ofSeconds(2),
                false));

        Map<String, PrometheusTextParser.Family> families = scrape();

        PrometheusTextParser.Family requests = families.get("rest_client_requests_total");
        assertThat(requests.type()).isEqualTo("counter");
        assertThat(requests.help()).isEqualTo("[ALPHA] Number of HTTP requests, partitioned by status code, "
                + "method, and host.");
        assertThat(requests.samples()).extracting(PrometheusTextParser.Sample::labels).containsExactlyInAnyOrder(
                Map.of("code", "200", "method", "GET", "host", "10.0.0.1:6443"),
                Map.of("code", "503", "method", "GET", "host", "10.0.0.1:6443"),
                Map.of("code", "101", "method", "GET", "host", "10.0.0.1:6443"),
                Map.of("code", "<error>", "method", "POST", "host", "10.0.0.1:6443"));
        PrometheusTextParser.Family duration = families.get("rest_client_request_duration_seconds");
        assertThat(duration.samples("rest_client_request_duration_seconds_bucket",
                Map.of("verb", "GET", "host", "10.0.0.1:6443"))).extracting(s -> s.labels().get("le"))
                .containsExactly("0.005", "0.025", "0.1", "0.25", "0.5", "1", "2", "4", "8", "15", "30", "60",
                        "+Inf");
        assertThat(duration.value("rest_client_request_duration_seconds_count",
                Map.of("verb", "GET", "host", "10.0.0.1:6443"))).as("the watch is not timed").isEqualTo(2);
        assertThat(duration.value("rest_client_request_duration_seconds_bucket",
                Map.of("verb", "GET", "host", "10.0.0.1:6443", "le", "0.005"))).isEqualTo(1);
        assertThat(duration.value("rest_client_request_duration_seconds_count",
                Map.of("verb", "POST", "host", "10.0.0.1:6443"))).isEqualTo(1);
    }

    @Test
    void withBuildInfoTheProcessJvmAndBuildMetricsOfTheDashboardsAreServed() throws IOException {
        PrometheusAgentMetrics agent = new PrometheusAgentMetrics(
                new BuildInfo("v1.33.0", "0.1.0", "17.0.15", "Debian", "windows/amd64"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        agent.write(out);
        Map<String, PrometheusTextParser.Family> families =
                PrometheusTextParser.parse(out.toString(StandardCharsets.UTF_8));

        assertThat(families).containsKeys("process_cpu_seconds_total", "process_resident_memory_bytes",
                "process_virtual_memory_bytes", "process_open_fds", "process_max_fds", "process_start_time_seconds",
                "jvm_memory_used_bytes", "jvm_threads_current", "jvm_gc_collection_seconds", "go_goroutines");
        assertThat(families.get("process_resident_memory_bytes").value("process_resident_memory_bytes", Map.of()))
                .isPositive();
        assertThat(families.get("go_goroutines").value("go_goroutines", Map.of())).isPositive();
        PrometheusTextParser.Family build = families.get("kubernetes_build_info");
        assertThat(build.type()).isEqualTo("gauge");
        assertThat(build.samples()).singleElement().satisfies(sample -> {
            assertThat(sample.value()).isEqualTo(1);
            assertThat(sample.labels()).containsExactlyInAnyOrderEntriesOf(Map.of("major", "1", "minor", "33",
                    "git_version", "v1.33.0", "git_commit", "winproxy-0.1.0", "git_tree_state", "clean",
                    "build_date", "", "go_version", "java17.0.15", "compiler", "winproxy",
                    "platform", "windows/amd64"));
        });
    }

    private Map<String, PrometheusTextParser.Family> scrape() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        metrics.write(out);
        return PrometheusTextParser.parse(out.toString(StandardCharsets.UTF_8));
    }
}
