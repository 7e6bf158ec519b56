package io.winproxy.agent.health;

import io.winproxy.agent.kube.EventRecorder;
import io.winproxy.agent.metrics.AgentMetrics;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.NodeInfo;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * kube-proxy's proxy health server on {@code healthzBindAddress} (default {@code 0.0.0.0:10256}): {@code /healthz}
 * (proxier healthy and node eligible) and {@code /livez} (proxier healthy), JSON bodies as upstream's
 * {@code ProxyHealthServer}, 404 for any other path, counters {@code kubeproxy_proxy_healthz_total} and
 * {@code kubeproxy_proxy_livez_total} by code.
 *
 * <p>Usage by the sync loop: {@link #updated} once at loop start and after every successful sync that programmed
 * HNS, {@link #queued} whenever a change is queued, {@link #syncNode} on every event of this node's Node object,
 * {@link #start()} once, {@link #close()} at shutdown. With an empty bind address nothing listens but the state is
 * still kept, and {@link #isProxyHealthy()} then answers {@code true} as upstream does for service health checks
 * without a proxy health server.
 *
 * <p>Thread-safe.
 */
public final class ProxyHealthServer extends NodeListener {

    /** Event reason when the listener cannot bind (kube-proxy's). */
    public static final String FAILED_TO_START_REASON = "FailedToStartProxierHealthcheck";


    private final ProxierHealth health;
    private final AgentMetrics metrics;

    /**
     * @param bindAddress  {@code IP:port}; empty or null disables the listener
     * @param syncPeriod   the proxy's {@code syncPeriod}; the health timeout is twice that
     * @param hardFail     {@code bindAddressHardFail}: a bind failure makes {@link #start()} throw
     * @param nodeName     this node, the object of the Warning event on a bind failure
     * @throws IllegalArgumentException with a one-line message naming {@code healthzBindAddress} when invalid
     */
    public static ProxyHealthServer create(String bindAddress, Duration syncPeriod, boolean hardFail, String nodeName,
                                           AgentMetrics metrics, EventRecorder events) {
        return new ProxyHealthServer(BindAddress.parse("healthzBindAddress", bindAddress).orElse(null),
                new ProxierHealth(ProxierHealth.timeoutForSyncPeriod(syncPeriod), Clock.systemDefaultZone()),
                hardFail, nodeName, metrics, events, SupervisedListener.DEFAULT_RETRY_INTERVAL);
    }

    /**
     * The full constructor (tests inject the clock through {@code health} and a short retry interval).
     *
     * @param bindAddress null disables the listener
     */
    public ProxyHealthServer(BindAddress bindAddress, ProxierHealth health, boolean hardFail, String nodeName,
                             AgentMetrics metrics, EventRecorder events, Duration retryInterval) {
        super("proxy healthz", bindAddress, hardFail, retryInterval, nodeName, events, FAILED_TO_START_REASON,
                "proxy healthz server disabled (empty healthzBindAddress)");
        this.health = Objects.requireNonNull(health, "health");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
    }

    /** A change for {@code family} was queued and not yet applied. */
    public void queued(IpFamily family) {
        health.queued(family);
    }

    /** A sync of {@code family} completed and programmed HNS. */
    public void updated(IpFamily family) {
        health.updated(family);
    }

    /** The agent no longer runs {@code family} (the node lost its address of that family); drops its entry. */
    public void forget(IpFamily family) {
        health.forget(family);
    }

    /** The latest state of this node's Node object; {@code null} once it is deleted. */
    public void syncNode(NodeInfo node) {
        health.syncNode(node);
    }

    /** The proxier-only health given to service health checks; {@code true} when this server is disabled. */
    public boolean isProxyHealthy() {
        return !enabled() || health.isHealthy();
    }

    public ProxierHealth health() {
        return health;
    }

    @Override
    protected HttpResponse handle(HttpRequest request) {
        return switch (request.path()) {
            case "/healthz" -> respond(true);
            case "/livez" -> respond(false);
            default -> HttpResponses.notFound();
        };
    }

    private HttpResponse respond(boolean healthz) {
        ProxyHealth current = health.health();
        Boolean nodeEligible = healthz ? health.nodeEligible() : null;
        boolean ok = current.healthy() && (nodeEligible == null || nodeEligible);
        // Old clients read a recent lastUpdated as "healthy", so a 200 reports the current time.
        Instant lastUpdated = ok ? current.currentTime() : current.lastUpdated();
        int status = ok ? 200 : 503;
        if (healthz) {
            metrics.healthzResponse(status);
        } else {
            metrics.livezResponse(status);
        }
        String body = HealthJson.proxyHealth(current, lastUpdated, nodeEligible, health.clock().getZone());
        return HttpResponses.of(status, HttpResponses.JSON, body, Map.of());
    }
}
