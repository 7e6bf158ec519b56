package io.winproxy.agent.metrics;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.winproxy.agent.config.FeatureGates;
import io.winproxy.agent.health.HealthJson;
import io.winproxy.agent.kube.ApiRequest;
import io.winproxy.agent.kube.ApiRequestListener;
import io.winproxy.policy.model.IpFamily;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * {@link AgentMetrics} on the Prometheus Java client, in its own registry (no global state): kube-proxy's metric
 * set for kernelspace mode with upstream's names, types, help texts (with the {@code [ALPHA]} stability prefix),
 * buckets and the newest label set ({@code ip_family}), plus winproxy's HNS metrics.
 *
 * <p>With a {@link BuildInfo} it also serves the generic component metrics kube-proxy's dashboards read
 * ({@code process_*}, {@code jvm_*} in place of {@code go_*}, {@code go_goroutines}, {@code kubernetes_build_info}),
 * and as an {@link ApiRequestListener} client-go's {@code rest_client_requests_total} and
 * {@code rest_client_request_duration_seconds} from the Kubernetes client's requests.
 *
 * <p>Thread-safe. {@link #write(OutputStream)} renders the Prometheus text format (version 0.0.4).
 */
public final class PrometheusAgentMetrics implements AgentMetrics, ApiRequestListener {

    /** Content type of {@link #write}. */
    public static final String CONTENT_TYPE = PrometheusTextFormatWriter.CONTENT_TYPE;

    private final PrometheusRegistry registry = new PrometheusRegistry();
    /** An {@code le} label whose bound is a whole number written with a {@code .0} fraction. */
    private static final Pattern WHOLE_NUMBER_BOUND = Pattern.compile("le=\"(-?[0-9]+)\\.0\"");

    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
    private final Histogram syncDuration;
    private final Gauge syncTimestamp;
    private final Gauge queuedTimestamp;
    private final Histogram networkProgramming;
    private final NoLocalEndpointsGauge noLocalEndpoints = new NoLocalEndpointsGauge();
    private final Gauge endpointChangesPending;
    private final Counter endpointChangesTotal;
    private final Gauge serviceChangesPending;
    private final Counter serviceChangesTotal;
    private final Counter healthzTotal;
    private final Counter livezTotal;
    private final Counter hnsCalls;
    private final Counter hnsNativeCalls;
    private final Map<String, CounterDataPoint> nativeCallPoints = new ConcurrentHashMap<>();
    /** The data points of successful calls and of call durations, per operation: a sync makes thousands of calls. */
    private final Map<String, CounterDataPoint> okCallPoints = new ConcurrentHashMap<>();
    private final Map<String, DistributionDataPoint> callDurationPoints = new ConcurrentHashMap<>();
    private final Histogram hnsCallDuration;
    private final Gauge loadBalancers;
    private final Gauge servicePortsFailed;
    private final Counter journalWriteErrors;
    private final Map<String, Counter> lbFailures = new HashMap<>();
    private final Counter hnsRepairs;
    private final Gauge servicePorts;
    private long journalWriteErrorsSeen;
    private final Counter restClientRequests;
    private final Histogram restClientDuration;

    /** kube-proxy's and winproxy's own metrics, and the {@code rest_client_*} ones. */
    public PrometheusAgentMetrics() {
        syncDuration = Histogram.builder().name("kubeproxy_sync_proxy_rules_duration_seconds")
                .help(alpha("SyncProxyRules latency in seconds")).classicOnly()
                .classicExponentialUpperBounds(0.001, 2, 15).labelNames("ip_family").register(registry);
        syncTimestamp = Gauge.builder().name("kubeproxy_sync_proxy_rules_last_timestamp_seconds")
                .help(alpha("The last time proxy rules were successfully synced")).labelNames("ip_family")
                .register(registry);
        queuedTimestamp = Gauge.builder().name("kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds")
                .help(alpha("The last time a sync of proxy rules was queued")).labelNames("ip_family")
                .register(registry);
        networkProgramming = Histogram.builder().name("kubeproxy_network_programming_duration_seconds")
                .help(alpha("In Cluster Network Programming Latency in seconds")).classicOnly()
                .classicUpperBounds(networkProgrammingBuckets()).labelNames("ip_family").register(registry);
        endpointChangesPending = Gauge.builder().name("kubeproxy_sync_proxy_rules_endpoint_changes_pending")
                .help(alpha("Pending proxy rules Endpoint changes")).register(registry);
        endpointChangesTotal = Counter.builder().name("kubeproxy_sync_proxy_rules_endpoint_changes_total")
                .help(alpha("Cumulative proxy rules Endpoint changes")).register(registry);
        serviceChangesPending = Gauge.builder().name("kubeproxy_sync_proxy_rules_service_changes_pending")
                .help(alpha("Pending proxy rules Service changes")).register(registry);
        serviceChangesTotal = Counter.builder().name("kubeproxy_sync_proxy_rules_service_changes_total")
                .help(alpha("Cumulative proxy rules Service changes")).register(registry);
        healthzTotal = Counter.builder().name("kubeproxy_proxy_healthz_total")
                .help(alpha("Cumulative proxy healthz HTTP status")).labelNames("code").register(registry);
        livezTotal = Counter.builder().name("kubeproxy_proxy_livez_total")
                .help(alpha("Cumulative proxy livez HTTP status")).labelNames("code").register(registry);
        hnsCalls = Counter.builder().name("winproxy_hns_calls_total")
                .help("HNS (computenetwork.dll) calls by operation and HRESULT").labelNames("operation", "code")
                .register(registry);
        hnsNativeCalls = Counter.builder().name("winproxy_hns_native_calls_total")
                .help("Native HCN calls (computenetwork.dll exports, or the emulator's stand-ins) by function")
                .labelNames("call").register(registry);
        hnsCallDuration = Histogram.builder().name("winproxy_hns_call_duration_seconds")
                .help("HNS (computenetwork.dll) call latency in seconds by operation").classicOnly()
                .classicExponentialUpperBounds(0.001, 2, 15).labelNames("operation").register(registry);
        loadBalancers = Gauge.builder().name("winproxy_load_balancers")
                .help("HNS load balancers seen by the last sync, by whether winproxy owns them")
                .labelNames("ownership").register(registry);
        servicePortsFailed = Gauge.builder().name("winproxy_service_ports_failed")
                .help("Service ports whose HNS programming failed in the last sync").register(registry);
        journalWriteErrors = Counter.builder().name("winproxy_journal_write_errors_total")
                .help("Flushes of the ownership journal that failed; while it cannot be written no HNS object is "
                        + "created").register(registry);
        for (String op : List.of("create", "update", "delete")) {
            lbFailures.put(op, Counter.builder().name("kubeproxy_sync_proxy_rules_winkernel_lb_" + op + "_failures_total")
                    .help(alpha("Cumulative Windows kube-proxy load balancer " + op + " failures"))
                    .labelNames("ip_family", "lb_type", "error").register(registry));
        }
        hnsRepairs = Counter.builder().name("winproxy_hns_repairs_total")
                .help("HNS objects winproxy re-created or corrected after they changed behind its back, by object and "
                        + "cause").labelNames("object", "cause").register(registry);
        servicePorts = Gauge.builder().name("winproxy_service_ports")
                .help("Service ports on this node by programming state").labelNames("state").register(registry);
        restClientRequests = Counter.builder().name("rest_client_requests_total")
                .help(alpha("Number of HTTP requests, partitioned by status code, method, and host."))
                .labelNames("code", "method", "host").register(registry);
        restClientDuration = Histogram.builder().name("rest_client_request_duration_seconds")
                .help(alpha("Request latency in seconds. Broken down by verb, and host.")).classicOnly()
                .classicUpperBounds(REST_CLIENT_BUCKETS).labelNames("verb", "host").register(registry);
    }

    /**
     * As {@link #PrometheusAgentMetrics()}, plus the process, JVM and build metrics of this process (the agent's
     * {@code /metrics}).
     */
    public PrometheusAgentMetrics(BuildInfo build) {
        this();
        RuntimeMetrics.register(registry, build, RuntimeMetrics.isWindows(System.getProperty("os.name")),
                Win32Process::load);
    }

    /**
     * Serves {@code kubernetes_feature_enabled{name,stage}} as component-base's feature-gate metrics do: one series
     * per gate, 1 when enabled, {@code stage} {@code ALPHA}, {@code BETA}, {@code DEPRECATED} or empty for GA. Call
     * once, at start.
     *
     * @param gates name, stage ({@link FeatureGates.Stage} name) and effective value
     */
    public void featureGates(List<FeatureGates.Status> gates) {
        Gauge enabled = Gauge.builder().name("kubernetes_feature_enabled")
                .help("[BETA] This metric records the data about the stage and enablement of a k8s feature.")
                .labelNames("name", "stage").register(registry);
        gates.forEach(g -> enabled.labelValues(g.name(), g.stage() == FeatureGates.Stage.GA
                ? "" : g.stage().name()).set(g.enabled() ? 1 : 0));
    }

    /** client-go's buckets of {@code rest_client_request_duration_seconds}. */
    static final double[] REST_CLIENT_BUCKETS = {0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60};

    /**
     * The buckets of {@code kubeproxy_network_programming_duration_seconds}: {@code 0}, {@code 0.25}, {@code 0.5},
     * 1..59 by 1, 60..115 by 5, 120..300 by 30 (81 bounds, the leading 0 from upstream's merge of bucket lists).
     */
    public static double[] networkProgrammingBuckets() {
        double[] bounds = new double[81];
        int i = 0;
        bounds[i++] = 0;
        bounds[i++] = 0.25;
        bounds[i++] = 0.5;
        for (int s = 1; s <= 59; s++) {
            bounds[i++] = s;
        }
        for (int s = 60; s <= 115; s += 5) {
            bounds[i++] = s;
        }
        for (int s = 120; s <= 300; s += 30) {
            bounds[i++] = s;
        }
        return bounds;
    }

    /**
     * Writes every metric in the Prometheus text format. Bucket bounds are written as Go's client writes them
     * ({@code le="1"}, not the Java client's {@code le="1.0"}), so that queries and dashboards that select a bucket
     * by its {@code le} label, written for kube-proxy, find it.
     */
    public void write(OutputStream out) throws IOException {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream(16 * 1024);
        writer.write(buffer, registry.scrape());
        String text = WHOLE_NUMBER_BOUND.matcher(buffer.toString(StandardCharsets.UTF_8)).replaceAll("le=\"$1\"");
        out.write(text.getBytes(StandardCharsets.UTF_8));
        out.write(noLocalEndpoints.exposition().getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void syncDuration(IpFamily family, Duration duration) {
        syncDuration.labelValues(family(family)).observe(seconds(duration));
    }

    @Override
    public void syncTimestamp(IpFamily family, Instant when) {
        syncTimestamp.labelValues(family(family)).set(epochSeconds(when));
    }

    @Override
    public void queuedTimestamp(IpFamily family, Instant when) {
        queuedTimestamp.labelValues(family(family)).set(epochSeconds(when));
    }

    @Override
    public void observeNetworkProgrammingLatency(IpFamily family, Duration latency) {
        networkProgramming.labelValues(family(family)).observe(seconds(latency));
    }

    @Override
    public void noLocalEndpoints(IpFamily family, int internal, int external) {
        noLocalEndpoints.set(family, internal, external);
    }

    @Override
    public void familyRemoved(IpFamily family) {
        syncTimestamp.remove(family(family));
        queuedTimestamp.remove(family(family));
        noLocalEndpoints.remove(family);
    }

    @Override
    public void serviceChangeReceived() {
        serviceChangesTotal.inc();
    }

    @Override
    public void serviceChangesPending(int pending) {
        serviceChangesPending.set(pending);
    }

    @Override
    public void endpointChangeReceived() {
        endpointChangesTotal.inc();
    }

    @Override
    public void endpointChangesPending(int pending) {
        endpointChangesPending.set(pending);
    }

    @Override
    public void healthzResponse(int statusCode) {
        healthzTotal.labelValues(Integer.toString(statusCode)).inc();
    }

    @Override
    public void livezResponse(int statusCode) {
        livezTotal.labelValues(Integer.toString(statusCode)).inc();
    }

    @Override
    public void hnsNativeCall(String function) {
        nativeCallPoints.computeIfAbsent(function, f -> hnsNativeCalls.labelValues(f)).inc();
    }

    @Override
    public void hnsCall(String operation, int hresult, Duration latency) {
        CounterDataPoint calls = hresult == 0
                ? okCallPoints.computeIfAbsent(operation, op -> hnsCalls.labelValues(op, hresultLabel(0)))
                : hnsCalls.labelValues(operation, hresultLabel(hresult));
        calls.inc();
        callDurationPoints.computeIfAbsent(operation, hnsCallDuration::labelValues).observe(seconds(latency));
    }

    private static String hresultLabel(int hresult) {
        return String.format(Locale.ROOT, "0x%08X", hresult);
    }

    @Override
    public void loadBalancers(int owned, int unowned) {
        loadBalancers.labelValues("owned").set(owned);
        loadBalancers.labelValues("unowned").set(unowned);
    }

    @Override
    public void servicePortsFailed(int count) {
        servicePortsFailed.set(count);
    }

    @Override
    public void loadBalancerFailure(String operation, IpFamily family, String lbType, String errorLabel) {
        Counter counter = lbFailures.get(operation);
        if (counter != null) {
            counter.labelValues(family(family), lbType, errorLabel).inc();
        }
    }

    @Override
    public void hnsRepair(String object, String cause) {
        hnsRepairs.labelValues(object, cause).inc();
    }

    @Override
    public void servicePorts(int programmed, int pending, int failed, int notProgrammed) {
        servicePorts.labelValues("programmed").set(programmed);
        servicePorts.labelValues("pending").set(pending);
        servicePorts.labelValues("failed").set(failed);
        servicePorts.labelValues("not_programmed").set(notProgrammed);
    }

    @Override
    public synchronized void journalWriteErrors(long total) {
        if (total > journalWriteErrorsSeen) {
            journalWriteErrors.inc(total - journalWriteErrorsSeen);
            journalWriteErrorsSeen = total;
        }
    }

    /**
     * One request of the Kubernetes client: counted by code, method and host as client-go does (code
     * {@code <error>} when no answer came). Its latency (until the answer's headers) is observed by verb and host,
     * except for watches, whose answer is a stream that stays open for minutes.
     */
    @Override
    public void completed(ApiRequest request) {
        restClientRequests.labelValues(request.code(), request.method(), request.host()).inc();
        if (!request.watch()) {
            restClientDuration.labelValues(request.method(), request.host()).observe(seconds(request.latency()));
        }
    }

    private static String alpha(String help) {
        return "[ALPHA] " + help;
    }

    private static String family(IpFamily family) {
        return HealthJson.familyName(family);
    }

    private static double seconds(Duration duration) {
        return duration.getSeconds() + duration.getNano() / 1e9;
    }

    private static double epochSeconds(Instant when) {
        return when.getEpochSecond() + when.getNano() / 1e9;
    }

    /**
     * {@code kubeproxy_sync_proxy_rules_no_local_endpoints_total} is a gauge whose name ends in {@code _total}. The
     * Prometheus Java client refuses such a gauge name (it reserves the suffix for counters), so this one family is
     * kept here and rendered in the same text format after the registry's families; the name stays upstream's so
     * that existing dashboards and alerts keep working.
     */
    private static final class NoLocalEndpointsGauge {
        private static final String NAME = "kubeproxy_sync_proxy_rules_no_local_endpoints_total";
        private final Map<IpFamily, int[]> values = new EnumMap<>(IpFamily.class);

        synchronized void set(IpFamily family, int internal, int external) {
            values.put(family, new int[] {internal, external});
        }

        synchronized void remove(IpFamily family) {
            values.remove(family);
        }

        synchronized String exposition() {
            if (values.isEmpty()) {
                return "";
            }
            StringBuilder text = new StringBuilder()
                    .append("# HELP ").append(NAME)
                    .append(" [ALPHA] Number of services with a Local traffic policy and no endpoints\n")
                    .append("# TYPE ").append(NAME).append(" gauge\n");
            values.forEach((family, counts) -> {
                String label = family(family);
                text.append(NAME).append("{ip_family=\"").append(label).append("\",traffic_policy=\"internal\"} ")
                        .append(counts[0]).append(".0\n");
                text.append(NAME).append("{ip_family=\"").append(label).append("\",traffic_policy=\"external\"} ")
                        .append(counts[1]).append(".0\n");
            });
            return text.toString();
        }
    }
}
