package io.winproxy.agent.status;

import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.desired.HnsFlags;
import io.winproxy.policy.desired.LoadBalancerKey;
import io.winproxy.policy.desired.LoadBalancerKind;
import io.winproxy.policy.desired.PolicyWarning;
import io.winproxy.policy.model.EndpointInfo;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.Protocol;
import io.winproxy.policy.model.ServicePortInfo;
import io.winproxy.policy.model.ServicePortName;
import io.winproxy.policy.plan.PlanStep;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Computes the {@link ServicePortStatus} of one Service port from what the proxy knows: the port and its endpoints
 * (the trackers' state), the desired state, the HNS load balancers winproxy owns (by key, from the ownership
 * journal), the steps still to run, and what the agent remembers of the port ({@link ProgrammingBook.Entry}: times,
 * last error, pending or failing). The running agent and the offline computation of {@code winproxy status} call the
 * same code with their inputs, so they agree on the state. Pure; cost proportional to the port's frontends.
 */
public final class StatusCalculator {
    /** Policy warning reasons that mean backends were cut by a backend limit (the policy's and the newer name). */
    static final Set<String> CUT_REASONS = Set.of("BackendsCut", "TooManyBackends");

    /**
     * What the computation reads.
     *
     * @param desired       the desired state of the last sync (or of the offline evaluation)
     * @param ownedIds      HNS load-balancer ID by {@link #keyId(LoadBalancerKey)} of the load balancers winproxy
     *                      owns; null when not looked up (every desired load balancer is taken as on the host)
     * @param pendingSteps  steps that still have to run, by service port ("ns/name:port"): offline, the plan; in the
     *                      agent, none (the book knows what is pending)
     * @param families      the IP families this node serves
     * @param warningsByService the desired state's warnings by "ns/name"
     */
    public record Inputs(DesiredState desired, Map<String, String> ownedIds, Map<String, List<PlanStep>> pendingSteps,
                         List<IpFamily> families, Map<String, List<PolicyWarning>> warningsByService) {
    }

    private StatusCalculator() {
    }

    /** The journal-index form of a key: "10.96.0.10:53/UDP" plus "|6" for IPv6. */
    public static String keyId(LoadBalancerKey key) {
        return keyId(key.toString(), key.family() == IpFamily.IPV6);
    }

    /** As {@link #keyId(LoadBalancerKey)} from a journal entry's key text and family. */
    public static String keyId(String keyText, boolean ipv6) {
        return ipv6 ? keyText + "|6" : keyText;
    }

    /** The pending steps of a plan by service port. */
    public static Map<String, List<PlanStep>> stepsByServicePort(List<PlanStep> steps) {
        Map<String, List<PlanStep>> out = new HashMap<>();
        for (PlanStep step : steps) {
            if (!step.service().isEmpty()) {
                out.computeIfAbsent(step.service(), s -> new ArrayList<>()).add(step);
            }
        }
        return out;
    }

    /** The warnings of a desired state by "ns/name". */
    public static Map<String, List<PolicyWarning>> warningsByService(List<PolicyWarning> warnings) {
        Map<String, List<PolicyWarning>> out = new HashMap<>();
        for (PolicyWarning w : warnings) {
            if ("Service".equals(w.kind())) {
                out.computeIfAbsent(w.namespace() + "/" + w.name(), k -> new ArrayList<>()).add(w);
            }
        }
        return out;
    }

    /**
     * The status of one port.
     *
     * @param entry what the agent remembers of the port; null offline or when nothing happened to it
     */
    public static ServicePortStatus of(ServicePortInfo info, List<EndpointInfo> endpoints, Inputs in,
                                       ProgrammingBook.Entry entry) {
        ServicePortName name = info.name();
        List<ServicePortStatus.Frontend> frontends = new ArrayList<>();
        List<DesiredLoadBalancer> desired = new ArrayList<>();
        for (IpFamily family : info.families()) {
            boolean served = in.families().contains(family);
            String fam = family == IpFamily.IPV6 ? "IPv6" : "IPv4";
            addFrontend(frontends, desired, in, name, LoadBalancerKind.CLUSTER_IP, family, fam, info.clusterIp(family),
                    info.port(), info.protocol(), served);
            if (info.nodePort() > 0) {
                addFrontend(frontends, desired, in, name, LoadBalancerKind.NODE_PORT, family, fam, "", info.nodePort(),
                        info.protocol(), served);
            }
            for (String ip : info.externalIps(family)) {
                addFrontend(frontends, desired, in, name, LoadBalancerKind.EXTERNAL_IP, family, fam, ip, info.port(),
                        info.protocol(), served);
            }
            for (String ip : info.loadBalancerIps(family)) {
                addFrontend(frontends, desired, in, name, LoadBalancerKind.LOAD_BALANCER_INGRESS, family, fam, ip,
                        info.port(), info.protocol(), served);
                if (info.healthCheckNodePort() > 0) {
                    LoadBalancerKey hc = new LoadBalancerKey(family, ip, Protocol.TCP, info.healthCheckNodePort());
                    in.desired().loadBalancer(hc).filter(lb -> lb.service().equals(name)).ifPresent(lb -> {
                        frontends.add(new ServicePortStatus.Frontend(LoadBalancerKind.HEALTH_CHECK.displayName(), fam,
                                ip, hc.externalPort(), served));
                        desired.add(lb);
                    });
                }
            }
        }
        List<PlanStep> steps = in.pendingSteps().getOrDefault(name.toString(), List.of());
        Set<String> touchedKeys = new TreeSet<>();
        steps.forEach(s -> touchedKeys.add(s.object()));
        List<ServicePortStatus.LoadBalancer> lbs = new ArrayList<>();
        TreeSet<String> chosen = new TreeSet<>();
        TreeSet<String> held = new TreeSet<>();
        boolean missing = false;
        for (DesiredLoadBalancer lb : desired) {
            chosen.addAll(lb.backends());
            // No ID map: the caller (the agent's tracker) knows the apply put every load balancer it did not report.
            String id = in.ownedIds() == null ? null : in.ownedIds().getOrDefault(keyId(lb.key()), "");
            boolean current = (id == null || !id.isEmpty()) && !touchedKeys.contains(lb.key().toString());
            missing |= id != null && id.isEmpty();
            if (current) {
                held.addAll(lb.backends());
            }
            lbs.add(new ServicePortStatus.LoadBalancer(id == null ? "" : id, lb.key().toString(),
                    lb.kind().displayName(), lb.dsr(), lb.distributionType() == HnsFlags.DISTRIBUTION_SOURCE_IP,
                    current ? lb.backends().size() : 0, current));
        }
        int ready = (int) endpoints.stream().filter(e -> e.ready() || e.servingTerminating()).count();
        boolean anyLocal = endpoints.stream().anyMatch(e -> e.local() && (e.ready() || e.servingTerminating()));
        List<String> notes = new ArrayList<>();
        List<PolicyWarning> warnings = in.warningsByService().getOrDefault(name.serviceKey(), List.of());
        boolean cut = false;
        for (PolicyWarning w : warnings) {
            if (CUT_REASONS.contains(w.reason()) && w.message().contains(policyPortLabel(info))) {
                cut = true;
                notes.add("backends cut by a backend limit: " + w.message());
            }
        }
        if (frontends.stream().anyMatch(f -> !f.served())) {
            notes.add("family not served on this node: " + String.join(", ", frontends.stream()
                    .filter(f -> !f.served()).map(ServicePortStatus.Frontend::family).distinct().toList()));
        }
        if (info.externalPolicyLocal() && !anyLocal && ready > 0) {
            notes.add("externalTrafficPolicy: Local with no local endpoint: external frontends are not programmed");
        }

        String state;
        String reason;
        Instant nextTry = null;
        if (entry != null && entry.failing()) {
            state = ServicePortStatus.FAILED;
            ServicePortStatus.LastError e = entry.lastError();
            reason = e == null ? "an HNS step failed" : e.hresult().isEmpty() ? e.message()
                    : e.name() + ": " + e.cause();
            nextTry = entry.nextTry();
        } else if (entry != null && entry.pending()) {
            state = ServicePortStatus.PENDING;
            reason = entry.pendingReason();
            nextTry = entry.nextTry();
        } else if (!steps.isEmpty()) {
            state = ServicePortStatus.PENDING;
            reason = "the next sync will " + String.join(", ", steps.stream().map(s -> s.op() + " " + s.object())
                    .toList());
        } else if (desired.isEmpty()) {
            state = ServicePortStatus.NOT_PROGRAMMED;
            reason = notProgrammedReason(info, endpoints, ready, anyLocal, in.families(), cut);
        } else if (missing) {
            state = ServicePortStatus.PENDING;
            reason = "a load balancer is not on the host yet";
        } else {
            state = ServicePortStatus.PROGRAMMED;
            reason = "";
        }
        Instant lastChange = entry == null ? null : entry.lastChange();
        Instant programmedAt = entry == null ? null : entry.programmedAt();
        Long latency = lastChange != null && programmedAt != null && !programmedAt.isBefore(lastChange)
                ? programmedAt.toEpochMilli() - lastChange.toEpochMilli() : null;
        return new ServicePortStatus(name.serviceKey(), name.port(), info.protocol().name(), state, reason,
                iso(nextTry), frontends, new ServicePortStatus.Backends(endpoints.size(), ready, chosen.size(), held.size()),
                lbs, iso(lastChange), iso(programmedAt), latency, entry == null ? null : entry.lastError(), notes);
    }

    private static void addFrontend(List<ServicePortStatus.Frontend> frontends, List<DesiredLoadBalancer> desired,
                                    Inputs in, ServicePortName name, LoadBalancerKind kind, IpFamily family,
                                    String fam, String ip, int port, Protocol protocol, boolean served) {
        if (ip == null || (ip.isEmpty() && kind != LoadBalancerKind.NODE_PORT)) {
            return;
        }
        frontends.add(new ServicePortStatus.Frontend(kind.displayName(), fam, ip.isEmpty() ? "*" : ip, port, served));
        in.desired().loadBalancer(new LoadBalancerKey(family, ip, protocol, port))
                .filter(lb -> lb.service().equals(name)).ifPresent(desired::add);
    }

    private static String notProgrammedReason(ServicePortInfo info, List<EndpointInfo> endpoints, int ready,
                                              boolean anyLocal, List<IpFamily> families, boolean cut) {
        if (info.families().stream().noneMatch(families::contains)) {
            return "family not served: this node serves " + String.join(" and ", families.stream()
                    .map(f -> f == IpFamily.IPV6 ? "IPv6" : "IPv4").toList()) + " only";
        }
        if (endpoints.isEmpty() || ready == 0) {
            return "no ready endpoints";
        }
        if (info.internalPolicyLocal() && !anyLocal) {
            return "internalTrafficPolicy: Local with no local endpoint";
        }
        if (info.externalPolicyLocal() && !anyLocal) {
            return "externalTrafficPolicy: Local with no local endpoint";
        }
        if (cut) {
            return "cut by a backend limit";
        }
        return "no endpoint this node can program (a local endpoint the CNI has not created yet, or another family)";
    }

    static String iso(Instant t) {
        return t == null ? null : t.toString();
    }

    /** How policy warnings name a port ("port http/TCP:"), so that a Service's warnings can be matched to its ports. */
    private static String policyPortLabel(ServicePortInfo info) {
        return "port " + (info.name().port().isEmpty() ? Integer.toString(info.port()) : info.name().port()) + "/"
                + info.protocol() + ":";
    }
}
