package io.winproxy.agent.check;

import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.desired.LoadBalancerKind;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.Protocol;
import io.winproxy.policy.model.ServiceInfo;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The reachability group ({@code --probe-traffic}): from the node, a TCP connection to a sample of ClusterIPs,
 * NodePorts, external IPs and load-balancer IPs, each of a Service port with a ready backend (a desired load balancer
 * with backends), and an HTTP GET of the {@code healthCheckNodePort} of {@code externalTrafficPolicy: Local}
 * Services. One verdict per probe. How a probe is made is the {@link Prober}'s: a socket on a node
 * ({@link SocketProber}), the packet tracer through what HNS holds on an emulated host ({@link TracedProber}, whose
 * results say <em>modelled</em>).
 */
public final class Reachability {
    private static final CheckGroup G = CheckGroup.reachability;
    /** Probes per kind of frontend. */
    static final int SAMPLE = 5;

    /** Makes one probe. */
    public interface Prober {
        /** Whether results are modelled (the packet tracer) rather than measured. */
        boolean modelled();

        /** A TCP connection to {@code ip:port}, the frontend of {@code lb}: empty when it worked, else why not. */
        Outcome connect(DesiredLoadBalancer lb, String ip, int port);

        /** An HTTP GET of {@code http://ip:port/}; null when the prober cannot (modelled). */
        Outcome healthCheck(String ip, int port);
    }

    /**
     * What one probe found.
     *
     * @param ok     it worked
     * @param detail what happened ("connected in 3 ms", "forwarded to 10.244.1.5:53", "timed out after 1 s")
     */
    public record Outcome(boolean ok, String detail) {
    }

    private Reachability() {
    }

    /**
     * @param desired  this node's desired state (what the Services want; a load balancer with backends is a Service
     *                 port with a ready backend)
     * @param nodeIp   this node's IP (the destination of NodePorts and health checks)
     * @param services the Services (for {@code healthCheckNodePort}); may be empty
     */
    public static List<CheckResult> run(DesiredState desired, String nodeIp, List<ServiceInfo> services,
                                        Prober prober) {
        List<CheckResult> out = new ArrayList<>();
        String label = prober.modelled() ? "modelled: " : "";
        for (LoadBalancerKind kind : List.of(LoadBalancerKind.CLUSTER_IP, LoadBalancerKind.NODE_PORT,
                LoadBalancerKind.EXTERNAL_IP, LoadBalancerKind.LOAD_BALANCER_INGRESS)) {
            for (DesiredLoadBalancer lb : sample(desired, kind)) {
                String ip = lb.key().frontendVip().isEmpty() ? nodeIp : lb.key().frontendVip();
                String target = (ip.contains(":") ? "[" + ip + "]" : ip) + ":" + lb.externalPort();
                Outcome o = prober.connect(lb, ip, lb.externalPort());
                String what = label + "TCP to " + target + " (" + lb.service() + " " + kind.displayName() + ")";
                out.add(o.ok() ? CheckResult.pass(G, "tcp", what + ": " + o.detail()).about(lb.service().toString())
                        : CheckResult.fail(G, "tcp", what + ": " + o.detail(), "no backend answers, or HNS does not"
                                        + " forward the frontend (a missing or stale load balancer)",
                                "winproxy trace --src " + nodeIp + " --dst " + target + "; winproxy status "
                                        + lb.service().namespace() + "/" + lb.service().name()
                                        + " (docs/troubleshooting.md#reachability)").about(lb.service().toString()));
            }
        }
        int checks = 0;
        for (ServiceInfo s : services.stream().filter(s -> s.healthCheckNodePort() > 0)
                .sorted(Comparator.comparing(ServiceInfo::key)).toList()) {
            if (checks++ >= SAMPLE) {
                break;
            }
            Outcome o = prober.healthCheck(nodeIp, s.healthCheckNodePort());
            if (o == null) {
                continue;
            }
            String what = "GET http://" + nodeIp + ":" + s.healthCheckNodePort() + "/ (healthCheckNodePort of "
                    + s.key() + ")";
            out.add(o.ok() ? CheckResult.pass(G, "health-check", what + ": " + o.detail()).about(s.key())
                    : CheckResult.fail(G, "health-check", what + ": " + o.detail(), "the proxy's health-check"
                                    + " listener does not answer: the cloud load balancer takes this node out",
                            "check that the proxy runs and that no firewall rule blocks the port"
                                    + " (docs/troubleshooting.md#reachability)").about(s.key()));
        }
        if (out.isEmpty()) {
            out.add(CheckResult.pass(G, "tcp", "no Service port of this node has a ready backend to probe"));
        }
        return out;
    }

    /**
     * Up to {@link #SAMPLE} TCP load balancers of {@code kind} with backends, one per Service: the cluster DNS
     * Service first, then by name.
     */
    static List<DesiredLoadBalancer> sample(DesiredState desired, LoadBalancerKind kind) {
        Set<String> services = new HashSet<>();
        return desired.loadBalancers().stream()
                .filter(lb -> lb.kind() == kind && lb.key().protocol() == Protocol.TCP && !lb.backends().isEmpty()
                        && lb.key().family() == IpFamily.IPV4)
                .sorted(Comparator.comparing((DesiredLoadBalancer lb) -> !isDns(lb))
                        .thenComparing(lb -> lb.service().toString()).thenComparing(lb -> lb.key().toString()))
                .filter(lb -> services.add(lb.service().serviceKey()))
                .limit(SAMPLE).toList();
    }

    private static boolean isDns(DesiredLoadBalancer lb) {
        return "kube-system".equals(lb.service().namespace()) && ("kube-dns".equals(lb.service().name())
                || "coredns".equals(lb.service().name()));
    }
}
