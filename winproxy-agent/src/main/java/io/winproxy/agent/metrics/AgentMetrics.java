package io.winproxy.agent.metrics;

import io.winproxy.policy.model.IpFamily;
import java.time.Duration;
import java.time.Instant;

/**
 * The metrics port of the agent: plain calls from the sync loop, the change trackers, the health servers and the
 * HNS dataplane. {@link #NOOP} is the null object for tests and tools that serve no metrics;
 * {@link PrometheusAgentMetrics} exposes kube-proxy's metric set (names, types, buckets and labels) plus winproxy's
 * own HNS metrics.
 *
 * <p>Contract for implementations: every method is thread-safe, never blocks on I/O and never throws.
 */
public interface AgentMetrics {

    /** Records nothing. */
    AgentMetrics NOOP = new AgentMetrics() {
    };

    /**
     * One sync pass took {@code duration} ({@code kubeproxy_sync_proxy_rules_duration_seconds}). Upstream observes
     * every pass that got past the "initialised" check, including failed ones.
     */
    default void syncDuration(IpFamily family, Duration duration) {
    }

    /** A sync pass succeeded at {@code when} ({@code kubeproxy_sync_proxy_rules_last_timestamp_seconds}). */
    default void syncTimestamp(IpFamily family, Instant when) {
    }

    /**
     * A sync was requested at {@code when} ({@code kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds}); set
     * at sync-loop start and whenever a change is queued.
     */
    default void queuedTimestamp(IpFamily family, Instant when) {
    }

    /**
     * The time from an endpoint change (the EndpointSlice annotation
     * {@code endpoints.kubernetes.io/last-change-trigger-time}) to its programming in HNS, observed after a
     * successful sync ({@code kubeproxy_network_programming_duration_seconds}). A negative value (clock skew) is
     * observed as it is, as upstream does.
     */
    default void observeNetworkProgrammingLatency(IpFamily family, Duration latency) {
    }

    /**
     * The number of service ports with a Local traffic policy and no local endpoints, computed on every sync
     * ({@code kubeproxy_sync_proxy_rules_no_local_endpoints_total{traffic_policy="internal"|"external"}}, a gauge
     * despite its name).
     *
     * @param internal ports with {@code internalTrafficPolicy: Local} and no local endpoint
     * @param external externally accessible ports with {@code externalTrafficPolicy: Local} and no local endpoint
     */
    default void noLocalEndpoints(IpFamily family, int internal, int external) {
    }

    /**
     * The agent stopped running {@code family} (a dual-stack node lost its IPv6 address): the family's gauges
     * (last sync and last queued timestamps, no-local-endpoint counts) are removed so that they do not go stale;
     * its histograms keep their counts.
     */
    default void familyRemoved(IpFamily family) {
    }

    /** The service change tracker received one update, no-ops included ({@code ..._service_changes_total}). */
    default void serviceChangeReceived() {
    }

    /** Services with a pending change; 0 when a sync applies them ({@code ..._service_changes_pending}). */
    default void serviceChangesPending(int pending) {
    }

    /** The endpoint change tracker accepted one EndpointSlice event ({@code ..._endpoint_changes_total}). */
    default void endpointChangeReceived() {
    }

    /** Pending changing EndpointSlice events; 0 when a sync applies them ({@code ..._endpoint_changes_pending}). */
    default void endpointChangesPending(int pending) {
    }

    /** {@code /healthz} answered {@code statusCode} ({@code kubeproxy_proxy_healthz_total{code}}). */
    default void healthzResponse(int statusCode) {
    }

    /** {@code /livez} answered {@code statusCode} ({@code kubeproxy_proxy_livez_total{code}}). */
    default void livezResponse(int statusCode) {
    }

    /**
     * One call into HNS returned {@code hresult} after {@code latency} ({@code winproxy_hns_calls_total{operation,
     * code}} and {@code winproxy_hns_call_duration_seconds{operation}}).
     *
     * @param operation the HCN function or a short stable name, e.g. {@code HcnCreateLoadBalancer}
     * @param hresult   0 (S_OK) on success, else the failure HRESULT; exposed as {@code 0x%08X}
     */
    default void hnsCall(String operation, int hresult, Duration latency) {
    }

    /**
     * One native call into {@code computenetwork.dll} (or, on the emulator, the call it stands for), by export name
     * ({@code winproxy_hns_native_calls_total{call="HcnEnumerateEndpoints"}}). Called on the calling thread.
     */
    default void hnsNativeCall(String function) {
    }

    /**
     * HNS load balancers seen by the last observe: those in the ownership journal and the others
     * ({@code winproxy_load_balancers{ownership="owned"|"unowned"}}).
     */
    default void loadBalancers(int owned, int unowned) {
    }

    /** Service ports whose programming failed in the last sync ({@code winproxy_service_ports_failed}). */
    default void servicePortsFailed(int count) {
    }

    /**
     * One HNS write of a Service's load balancer failed (kubernetes#137766:
     * {@code kubeproxy_sync_proxy_rules_winkernel_lb_{create,update,delete}_failures_total{ip_family,lb_type,error}}).
     *
     * @param operation  {@code create}, {@code update} or {@code delete}
     * @param lbType     {@code clusterip}, {@code nodeport}, {@code externalip}, {@code ingressip} or
     *                   {@code healthcheck}
     * @param errorLabel {@code network_not_found}, {@code port_already_exists}, {@code not_implemented},
     *                   {@code invalid_ip} or {@code other} ({@link io.winproxy.hns.HnsErrors#label})
     */
    default void loadBalancerFailure(String operation, IpFamily family, String lbType, String errorLabel) {
    }

    /**
     * The dataplane re-created or corrected an HNS object behind whose back it changed
     * ({@code winproxy_hns_repairs_total{object,cause}}).
     *
     * @param object {@code load_balancer} or {@code remote_endpoint}
     * @param cause  {@code deleted_out_of_band}, {@code changed_out_of_band}, {@code hns_restart} or {@code leaked}
     */
    default void hnsRepair(String object, String cause) {
    }

    /**
     * Service ports on this node by programming state ({@code winproxy_service_ports{state}}): {@code programmed},
     * {@code pending}, {@code failed}, {@code not_programmed}.
     */
    default void servicePorts(int programmed, int pending, int failed, int notProgrammed) {
    }

    /**
     * Flushes of the ownership journal that failed ({@code winproxy_journal_write_errors_total}); while it cannot be
     * written no HNS object is created. {@code total} is the count since start.
     */
    default void journalWriteErrors(long total) {
    }
}
