package io.winproxy.agent.metrics;

import io.winproxy.agent.health.BindAddress;
import io.winproxy.agent.health.HttpRequest;
import io.winproxy.agent.health.HttpResponse;
import io.winproxy.agent.health.HttpResponses;
import io.winproxy.agent.health.NodeListener;
import io.winproxy.agent.health.SupervisedListener;
import io.winproxy.agent.kube.EventRecorder;
import io.winproxy.agent.zpages.ComponentPages;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-proxy's metrics server on {@code metricsBindAddress} (default {@code 127.0.0.1:10249}): {@code /metrics}
 * (Prometheus text format), {@code /healthz} (a plain {@code ok}, not the proxier health), {@code /proxyMode}
 * ({@code kernelspace}), when a configuration source is given, {@code /configz}, and the {@link ComponentPages}
 * given to {@link #serve}; 404 elsewhere. A bind
 * failure is retried every 5 s, or thrown from {@link #start()} with {@code bindAddressHardFail}. Thread-safe.
 */
public final class MetricsServer extends NodeListener {

    /** Event reason when the listener cannot bind (kube-proxy's). */
    public static final String FAILED_TO_START_REASON = "FailedToStartMetricServer";
    /** The proxy mode reported on {@code /proxyMode}. */
    public static final String PROXY_MODE = "kernelspace";

    private static final Logger logger = LoggerFactory.getLogger(MetricsServer.class);

    private final PrometheusAgentMetrics metrics;
    private final Supplier<String> configzJson;
    private volatile ComponentPages pages;
    private final Map<String, Function<HttpRequest, HttpResponse>> routes = new ConcurrentHashMap<>();

    /**
     * @param bindAddress {@code IP:port}; empty or null disables the server
     * @throws IllegalArgumentException with a one-line message naming {@code metricsBindAddress} when invalid
     */
    public static MetricsServer create(String bindAddress, boolean hardFail, String nodeName,
                                       PrometheusAgentMetrics metrics, EventRecorder events) {
        return create(bindAddress, hardFail, nodeName, metrics, events, null);
    }

    /**
     * As {@link #create(String, boolean, String, PrometheusAgentMetrics, EventRecorder)}, also serving
     * {@code /configz}.
     *
     * @param configzJson the effective configuration as a JSON object (a {@code KubeProxyConfiguration}), served as
     *                    {@code {"kubeproxy.config.k8s.io":<it>}} like kube-proxy; null leaves {@code /configz} out
     */
    public static MetricsServer create(String bindAddress, boolean hardFail, String nodeName,
                                       PrometheusAgentMetrics metrics, EventRecorder events,
                                       Supplier<String> configzJson) {
        return new MetricsServer(BindAddress.parse("metricsBindAddress", bindAddress).orElse(null), hardFail,
                nodeName, metrics, events, SupervisedListener.DEFAULT_RETRY_INTERVAL, configzJson);
    }

    /** @param bindAddress null disables the server */
    public MetricsServer(BindAddress bindAddress, boolean hardFail, String nodeName, PrometheusAgentMetrics metrics,
                         EventRecorder events, Duration retryInterval) {
        this(bindAddress, hardFail, nodeName, metrics, events, retryInterval, null);
    }

    /**
     * @param bindAddress null disables the server
     * @param configzJson the effective configuration as a JSON object; null leaves {@code /configz} out
     */
    public MetricsServer(BindAddress bindAddress, boolean hardFail, String nodeName, PrometheusAgentMetrics metrics,
                         EventRecorder events, Duration retryInterval, Supplier<String> configzJson) {
        super("metrics server", bindAddress, hardFail, retryInterval, nodeName, events, FAILED_TO_START_REASON,
                "metrics server disabled (empty metricsBindAddress)");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.configzJson = configzJson;
    }

    /** Also serves {@code pages} ({@code /statusz}, {@code /flagz}, {@code /metrics/slis}, {@code /healthz}). */
    public void serve(ComponentPages pages) {
        this.pages = pages;
    }

    /** Also serves {@code path} with {@code handler} (e.g. {@code /status/services}, read-only). */
    public void route(String path, Function<HttpRequest, HttpResponse> handler) {
        routes.put(path, handler);
    }

    @Override
    protected HttpResponse handle(HttpRequest request) {
        Function<HttpRequest, HttpResponse> route = routes.get(request.path());
        if (route != null) {
            return route.apply(request);
        }
        ComponentPages extra = pages;
        if (extra != null) {
            HttpResponse page = extra.handle(request);
            if (page != null) {
                return page;
            }
        }
        return switch (request.path()) {
            case "/metrics" -> serveMetrics();
            case "/healthz" -> HttpResponses.of(200, HttpResponses.TEXT, "ok", Map.of());
            case "/proxyMode" -> HttpResponses.of(200, HttpResponses.TEXT, PROXY_MODE, Map.of());
            case "/configz" -> serveConfigz();
            default -> HttpResponses.notFound();
        };
    }

    private HttpResponse serveConfigz() {
        if (configzJson == null) {
            return HttpResponses.notFound();
        }
        String config;
        try {
            config = configzJson.get();
        } catch (RuntimeException e) {
            logger.atWarn().setMessage("Cannot render /configz").setCause(e).log();
            return HttpResponses.of(500, HttpResponses.TEXT, "cannot render the configuration\n", Map.of());
        }
        return HttpResponses.of(200, HttpResponses.JSON, "{\"kubeproxy.config.k8s.io\":" + config + "}", Map.of());
    }

    private HttpResponse serveMetrics() {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream(16 * 1024);
        try {
            metrics.write(buffer);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
        }
        return new HttpResponse(200, PrometheusAgentMetrics.CONTENT_TYPE, buffer.toByteArray(), Map.of());
    }
}
