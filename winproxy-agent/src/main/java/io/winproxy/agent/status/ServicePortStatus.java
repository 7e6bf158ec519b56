package io.winproxy.agent.status;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * What {@code winproxy status} says of one Service port on this node; the element of {@code servicePorts} in
 * {@code winproxy status -o json} and of the agent's {@code /status/services} endpoint (docs/health-and-metrics.md
 * documents the shape; scripts such as {@code Get-WinProxyServiceStatus} depend on the names).
 *
 * @param service       "namespace/name"
 * @param port          the port's name ("" for an unnamed port)
 * @param protocol      {@code TCP}, {@code UDP} or {@code SCTP}
 * @param state         {@code programmed}, {@code pending}, {@code failed} or {@code not programmed}
 * @param reason        why the port is in that state, one phrase ("" when programmed without remark)
 * @param nextTry       pending or failed: when the agent tries again (ISO-8601), or null when not known
 * @param frontends     every address the port is reachable on from this node, per family
 * @param backends      the endpoints in the EndpointSlices, ready, chosen for this node, and present in HNS
 * @param loadBalancers the HNS load balancers of the port (IDs and flags)
 * @param lastChange    when winproxy last saw the port's Service or EndpointSlices change (ISO-8601), or null
 * @param programmedAt  when that change was last programmed in HNS (ISO-8601), or null
 * @param latencyMillis {@code programmedAt - lastChange}: the per-Service programming latency, or null
 * @param lastError     the last HNS error of the port, decoded (null when none since the agent started)
 * @param notes         remarks that do not change the state (backends cut by a limit, a frontend family not served)
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record ServicePortStatus(String service, String port, String protocol, String state, String reason,
                                String nextTry, List<Frontend> frontends, Backends backends,
                                List<LoadBalancer> loadBalancers, String lastChange, String programmedAt,
                                Long latencyMillis, LastError lastError, List<String> notes) {
    public static final String PROGRAMMED = "programmed";
    public static final String PENDING = "pending";
    public static final String FAILED = "failed";
    public static final String NOT_PROGRAMMED = "not programmed";

    public ServicePortStatus {
        frontends = List.copyOf(frontends);
        loadBalancers = List.copyOf(loadBalancers);
        notes = List.copyOf(notes);
        reason = reason == null ? "" : reason;
    }

    /** "namespace/name:port". */
    public String servicePort() {
        return service + ":" + port;
    }

    /**
     * One frontend: {@code kind} as {@code plan -o json} names it ({@code ClusterIP}, {@code NodePort},
     * {@code ExternalIP}, {@code LoadBalancerIngress}, {@code HealthCheck}), {@code family} {@code IPv4}/{@code IPv6},
     * {@code ip} ("*" for a NodePort: every address of the node), {@code port}, and whether this node serves it.
     */
    public record Frontend(String kind, String family, String ip, int port, boolean served) {
    }

    /**
     * @param inSlices endpoints of the port in its EndpointSlices (any condition)
     * @param ready    of those, ready (or serving-terminating, which the policy may fall back to)
     * @param chosen   distinct backends this node's load balancers use (after traffic policies, topology and limits)
     * @param inHns    distinct backends the port's HNS load balancers hold now, as winproxy wrote them (the ownership
     *                 journal) to the up-to-date ones
     */
    public record Backends(int inSlices, int ready, int chosen, int inHns) {
    }

    /**
     * One HNS load balancer: {@code id} ("" when none is on the host), the frontend it serves
     * ("10.96.0.10:53/UDP"), {@code kind}, {@code dsr}, {@code sessionAffinity} (SourceIP distribution), the number
     * of backends it holds, and whether it is up to date ({@code current}: no step of the plan would touch it).
     */
    public record LoadBalancer(String id, String frontend, String kind, boolean dsr, boolean sessionAffinity,
                               int backends, boolean current) {
    }

    /**
     * The last failed HNS step of the port, decoded ({@link io.winproxy.hns.HnsErrors}): the plan op, the object,
     * the HRESULT ({@code 0x803B0013}) and its name, the likely cause, the fix, the message, when it happened and
     * how many attempts have failed in a row.
     */
    public record LastError(String op, String object, String hresult, String name, String cause, String fix,
                            String message, String at, int attempts) {
    }
}
