package io.winproxy.policy.desired;

import io.winproxy.policy.model.EndpointInfo;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.Protocol;
import io.winproxy.policy.model.ServicePortInfo;
import io.winproxy.policy.net.IpAddresses;
import io.winproxy.policy.spi.LoadBalancerFeature;
import io.winproxy.policy.spi.ServicePortContext;
import io.winproxy.policy.topology.CategorizedEndpoints;
import io.winproxy.policy.topology.EndpointCategorizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Computes the load balancers and remote endpoints of one service port (every IP family it carries): winkernel's
 * §3.2-§3.4 with winproxy's differences (KEP endpoint selection for every type, deterministic internal port, SPI
 * features). Pure; used by {@link PolicyCalculator}, which memoises the result per service port.
 */
final class ServicePortPolicy {

    /** The outcome for one service port. */
    record Result(List<DesiredLoadBalancer> loadBalancers, List<DesiredRemoteEndpoint> remoteEndpoints,
                  List<DesiredRemoteEndpoint> clusterIpEndpoints, List<PolicyWarning> warnings) {
        Result {
            loadBalancers = List.copyOf(loadBalancers);
            remoteEndpoints = List.copyOf(remoteEndpoints);
            clusterIpEndpoints = List.copyOf(clusterIpEndpoints);
            warnings = List.copyOf(warnings);
        }
    }

    private final NodeNetwork node;
    private final PolicyConfig config;
    private final List<LoadBalancerFeature> features;
    private final RemoteSubnets remoteSubnets;

    ServicePortPolicy(NodeNetwork node, PolicyConfig config, List<LoadBalancerFeature> features) {
        this.node = node;
        this.config = config;
        this.features = features;
        this.remoteSubnets = new RemoteSubnets(node.remoteSubnets());
    }

    Result compute(ServicePortInfo svc, List<EndpointInfo> endpoints) {
        List<DesiredLoadBalancer> lbs = new ArrayList<>();
        List<DesiredRemoteEndpoint> remotes = new ArrayList<>();
        List<DesiredRemoteEndpoint> clusterIpEndpoints = new ArrayList<>();
        List<PolicyWarning> warnings = new ArrayList<>();
        if (svc.clientIpAffinity() && svc.stickyMaxAgeSeconds() != ServicePortInfo.DEFAULT_STICKY_MAX_AGE_SECONDS) {
            warnings.add(warn(svc, "SessionAffinityTimeoutIgnored", "port " + portLabel(svc)
                    + ": sessionAffinityConfig.clientIP.timeoutSeconds " + svc.stickyMaxAgeSeconds()
                    + " cannot be honoured by HNS; SourceIP distribution is used without a timeout"));
        }
        if (svc.clientIpAffinity() && !config.hnsSupportsSessionAffinity()) {
            warnings.add(warn(svc, "SessionAffinityUnsupported", "port " + portLabel(svc)
                    + ": this HNS version does not support session affinity; SourceIP distribution is requested"
                    + " but may not be enforced"));
        }
        for (IpFamily family : svc.families()) {
            String reason = cannotCarry(family);
            if (reason != null) {
                warnings.add(warn(svc, "IPFamilyNotSupported", "port " + portLabel(svc) + ": "
                        + (family == IpFamily.IPV6 ? "IPv6" : "IPv4") + " cluster IP " + svc.clusterIp(family)
                        + " not programmed: " + reason));
                continue;
            }
            if (node.networkType() == NetworkType.OVERLAY && !node.hostMac().isEmpty()) {
                // winkernel makes this endpoint even when the service has no backends (T-new #1)
                clusterIpEndpoints.add(new DesiredRemoteEndpoint(svc.clusterIp(family), node.nodeIp(family),
                        node.hostMac()));
            }
            computeFamily(svc, family, endpoints, lbs, remotes, warnings);
        }
        return new Result(lbs, remotes, clusterIpEndpoints, warnings);
    }

    /** Null when the network can carry {@code family}, else the reason it cannot. */
    private String cannotCarry(IpFamily family) {
        if (node.nodeIp(family).isEmpty()) {
            return "this node has no " + (family == IpFamily.IPV6 ? "IPv6" : "IPv4") + " address";
        }
        if (family == IpFamily.IPV6 && node.networkType() == NetworkType.OVERLAY) {
            return "HNS overlay networks do not support IPv6";
        }
        if (family == IpFamily.IPV6 && !config.hnsSupportsIpv6DualStack()) {
            return "this HNS version does not support IPv6 (needs HNS 11.10)";
        }
        return null;
    }

    private void computeFamily(ServicePortInfo svc, IpFamily family, List<EndpointInfo> all,
                               List<DesiredLoadBalancer> lbs, List<DesiredRemoteEndpoint> remotes,
                               List<PolicyWarning> warnings) {
        ServicePortContext ctx = new ServicePortContext(svc, family, node, config);
        features.forEach(f -> warnings.addAll(f.warnings(ctx)));
        List<EndpointInfo> eps = programmable(all, family, features.stream()
                .anyMatch(f -> f.excludeRemoteEndpoints(ctx)));
        CategorizedEndpoints cat = EndpointCategorizer.categorize(eps, svc, node.nodeName(), node.zone(),
                config.featureEnabled(PolicyConfig.PREFER_SAME_TRAFFIC_DISTRIBUTION));
        List<EndpointInfo> local = svc.usesLocalEndpoints() ? cat.localEndpoints()
                : EndpointCategorizer.localEndpoints(eps);
        List<EndpointInfo> cluster = cat.clusterEndpoints();

        List<EndpointInfo> used = union(cluster, local);
        if (used.isEmpty()) {
            addHealthChecks(svc, family, ctx, cat, node.effectiveSourceVip(), lbs);
            return;
        }
        int internalPort = internalPort(svc, used, warnings);
        cluster = withPort(cluster, internalPort);
        local = withPort(local, internalPort);

        List<LbSpec> specs = new ArrayList<>();
        for (LbSpec spec : specs(svc, family, ctx, cluster, local)) {
            if (spec.backends().isEmpty()) {
                continue; // no LB without backends: the VIP is simply not programmed (no REJECT on Windows)
            }
            specs.add(limited(svc, spec, warnings));
        }
        TreeSet<String> programmed = new TreeSet<>();
        specs.forEach(spec -> programmed.addAll(spec.backends()));
        String sourceVip = remoteEndpoints(family, programmed, remotes);

        int baseFlags = family == IpFamily.IPV6 ? HnsFlags.LB_IPV6 : 0;
        int distribution = svc.clientIpAffinity() ? HnsFlags.DISTRIBUTION_SOURCE_IP : HnsFlags.DISTRIBUTION_NONE;
        for (LbSpec spec : specs) {
            DesiredLoadBalancer lb = new DesiredLoadBalancer(svc.name(), spec.kind(),
                    new LoadBalancerKey(family, spec.vip(), svc.protocol(), spec.externalPort()), internalPort,
                    spec.backends(), sourceVip, baseFlags, spec.portMappingFlags(), distribution);
            lbs.add(adjust(ctx, lb));
        }
        addHealthChecks(svc, family, ctx, cat, sourceVip, lbs);
    }

    /**
     * The endpoints of {@code family} that this node can program: a local endpoint (Kubernetes view) needs a local
     * CNI endpoint (as upstream, it is skipped until the CNI made it); remote ones are dropped when a feature says so.
     */
    private List<EndpointInfo> programmable(List<EndpointInfo> all, IpFamily family, boolean noRemote) {
        List<EndpointInfo> eps = new ArrayList<>();
        for (EndpointInfo ep : all) {
            boolean hnsLocal = node.localEndpointIps().contains(ep.ip());
            if (ep.family() != family || (ep.local() && !hnsLocal) || (noRemote && !ep.local() && !hnsLocal)) {
                continue;
            }
            eps.add(ep);
        }
        return eps;
    }

    /**
     * The endpoints in {@code a} or {@code b}. Both are selections from one list, which has one endpoint per
     * "ip:port", so an endpoint in both is the same instance.
     */
    private static List<EndpointInfo> union(List<EndpointInfo> a, List<EndpointInfo> b) {
        if (b.isEmpty()) {
            return a;
        }
        if (a.isEmpty()) {
            return b;
        }
        Set<EndpointInfo> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        List<EndpointInfo> out = new ArrayList<>(a.size() + b.size());
        for (EndpointInfo ep : a) {
            if (seen.add(ep)) {
                out.add(ep);
            }
        }
        for (EndpointInfo ep : b) {
            if (seen.add(ep)) {
                out.add(ep);
            }
        }
        return out;
    }

    /** One internal port per HNS load balancer: the port most used endpoints use, ties to the lowest. */
    private static int internalPort(ServicePortInfo svc, List<EndpointInfo> used, List<PolicyWarning> warnings) {
        int first = used.get(0).port();
        if (used.stream().allMatch(ep -> ep.port() == first)) {
            return first;
        }
        Map<Integer, Long> counts = used.stream().collect(Collectors.groupingBy(EndpointInfo::port,
                TreeMap::new, Collectors.counting()));
        int port = counts.entrySet().stream().max((a, b) -> a.getValue().equals(b.getValue())
                ? Integer.compare(b.getKey(), a.getKey()) : Long.compare(a.getValue(), b.getValue())).get().getKey();
        String excluded = used.stream().filter(ep -> ep.port() != port).map(EndpointInfo::key).sorted()
                .collect(Collectors.joining(", "));
        warnings.add(warn(svc, "MixedTargetPorts", "port " + portLabel(svc) + ": endpoints use different ports "
                + counts.keySet() + "; HNS load balancers have one internal port, " + port
                + " is used and these endpoints are excluded: " + excluded));
        return port;
    }

    /** The endpoints with {@code port}; the list itself when all have it. */
    private static List<EndpointInfo> withPort(List<EndpointInfo> endpoints, int port) {
        return endpoints.stream().allMatch(ep -> ep.port() == port) ? endpoints
                : endpoints.stream().filter(ep -> ep.port() == port).toList();
    }

    /** The candidate load balancers of one family with their backends (possibly empty). */
    private List<LbSpec> specs(ServicePortInfo svc, IpFamily family, ServicePortContext ctx,
                               List<EndpointInfo> cluster, List<EndpointInfo> local) {
        List<LbSpec> specs = new ArrayList<>();
        specs.add(new LbSpec(LoadBalancerKind.CLUSTER_IP, svc.clusterIp(family), svc.port(),
                ips(svc.internalPolicyLocal() ? local : cluster), 0));
        if (svc.nodePort() > 0) {
            specs.add(new LbSpec(LoadBalancerKind.NODE_PORT, "", svc.nodePort(),
                    externalBackends(svc, ctx, LoadBalancerKind.NODE_PORT, cluster, local),
                    HnsFlags.PM_LOCAL_ROUTED_VIP | HnsFlags.PM_VIP_EXTERNAL_IP));
        }
        for (String ip : svc.externalIps(family)) {
            specs.add(new LbSpec(LoadBalancerKind.EXTERNAL_IP, ip, svc.port(),
                    externalBackends(svc, ctx, LoadBalancerKind.EXTERNAL_IP, cluster, local),
                    HnsFlags.PM_VIP_EXTERNAL_IP));
        }
        for (String ip : svc.loadBalancerIps(family)) {
            specs.add(new LbSpec(LoadBalancerKind.LOAD_BALANCER_INGRESS, ip, svc.port(),
                    externalBackends(svc, ctx, LoadBalancerKind.LOAD_BALANCER_INGRESS, cluster, local),
                    HnsFlags.PM_VIP_EXTERNAL_IP));
        }
        return specs;
    }

    /** How many of the backends cut off a load balancer a {@code BackendsCut} warning names. */
    private static final int CUT_NAMED = 5;

    /**
     * Cuts the backends to the limit ({@link PolicyConfig#maxBackendsPerLoadBalancer}: winproxy's bound, or the one HNS
     * showed or was configured with) with a warning naming the Service port, the load balancer and what is cut. The
     * rule is {@link BackendCut}'s: this node's endpoints first, then by IP text; the warning names the first
     * {@value #CUT_NAMED} backends cut and the count.
     */
    private LbSpec limited(ServicePortInfo svc, LbSpec spec, List<PolicyWarning> warnings) {
        int max = config.maxBackendsPerLoadBalancer();
        List<String> backends = spec.backends();
        if (backends.size() <= max) {
            return spec;
        }
        List<String> kept = BackendCut.keep(backends, ip -> node.localEndpointIps().contains(ip), max);
        List<String> cut = BackendCut.cut(backends, kept);
        String named = String.join(", ", cut.subList(0, Math.min(CUT_NAMED, cut.size())))
                + (cut.size() > CUT_NAMED ? " and " + (cut.size() - CUT_NAMED) + " more" : "");
        warnings.add(warn(svc, "BackendsCut", "port " + portLabel(svc) + ": " + spec.kind().displayName()
                + " load balancer " + (spec.vip().isEmpty() ? "" : spec.vip() + " ") + "port " + spec.externalPort()
                + " has " + backends.size()
                + " backends, more than the " + max + " winproxy programs per load balancer; " + max
                + " are programmed (this node's first, then by IP), " + cut.size() + " are not: " + named));
        return new LbSpec(spec.kind(), spec.vip(), spec.externalPort(), kept, spec.portMappingFlags());
    }

    /**
     * Adds a remote endpoint for every programmed backend that is not on this node and returns the source VIP: on
     * overlay {@code --source-vip}, or the node IP when a remote backend is a node IP or has no provider address;
     * "" on l2bridge.
     */
    private String remoteEndpoints(IpFamily family, Set<String> programmed, List<DesiredRemoteEndpoint> remotes) {
        String sourceVip = node.effectiveSourceVip();
        for (String ip : programmed) {
            if (!isRemote(ip)) {
                continue;
            }
            byte[] address = IpAddresses.parse(ip).orElse(null);
            String pa = "";
            if (node.networkType() == NetworkType.OVERLAY) {
                String found = address == null ? remoteSubnets.providerAddressOf(ip).orElse("")
                        : Objects.requireNonNullElse(remoteSubnets.providerAddressOf(ip, address), "");
                if (found.isEmpty() || found.equals(ip)) {
                    sourceVip = node.nodeIp(family); // a node IP or a "public" IP: SNAT to the node IP
                }
                pa = found.isEmpty() ? node.nodeIp(family) : found;
            }
            remotes.add(DesiredRemoteEndpoint.conjured(ip, pa));
        }
        return sourceVip;
    }

    /** The health-check LBs (one per ingress IP) of {@code --forward-healthcheck-vip}. */
    private void addHealthChecks(ServicePortInfo svc, IpFamily family, ServicePortContext ctx,
                                 CategorizedEndpoints cat, String sourceVip, List<DesiredLoadBalancer> lbs) {
        if (!config.forwardHealthCheckVip() || !cat.hasAnyEndpoints() || svc.loadBalancerIps(family).isEmpty()) {
            return;
        }
        var root = node.rootEndpointIp(family);
        if (root.isEmpty()) {
            return;
        }
        int port = svc.healthCheckNodePort() > 0 ? svc.healthCheckNodePort() : config.healthzPort();
        int flags = family == IpFamily.IPV6 ? HnsFlags.LB_IPV6 : 0;
        for (String ip : svc.loadBalancerIps(family)) {
            // Health checks are HTTP: TCP whatever the service protocol (upstream uses the service's protocol).
            DesiredLoadBalancer lb = new DesiredLoadBalancer(svc.name(), LoadBalancerKind.HEALTH_CHECK,
                    new LoadBalancerKey(family, ip, Protocol.TCP, port), port, List.of(root.get()), sourceVip,
                    flags, 0, HnsFlags.DISTRIBUTION_NONE);
            lbs.add(adjust(ctx, lb));
        }
    }

    private DesiredLoadBalancer adjust(ServicePortContext ctx, DesiredLoadBalancer lb) {
        DesiredLoadBalancer out = lb;
        for (LoadBalancerFeature feature : features) {
            DesiredLoadBalancer next = feature.adjust(ctx, out);
            if (!next.key().equals(out.key()) || !next.backends().equals(out.backends())) {
                throw new IllegalStateException("load-balancer feature " + feature.name()
                        + " changed the key or backends of " + out.key());
            }
            out = next;
        }
        return out;
    }

    private List<String> externalBackends(ServicePortInfo svc, ServicePortContext ctx, LoadBalancerKind kind,
                                          List<EndpointInfo> cluster, List<EndpointInfo> local) {
        boolean localOnly = svc.externalPolicyLocal()
                || features.stream().anyMatch(f -> f.localBackendsOnly(ctx, kind));
        return ips(localOnly ? local : cluster);
    }

    /** An IP that is neither a local HNS endpoint nor this node's own address needs a remote HNS endpoint. */
    private boolean isRemote(String ip) {
        return !node.localEndpointIps().contains(ip) && !node.isNodeIp(ip)
                && !node.rootEndpointIps().contains(ip);
    }

    /** The distinct IPs of {@code endpoints}, sorted as text. */
    private static List<String> ips(List<EndpointInfo> endpoints) {
        String[] ips = new String[endpoints.size()];
        for (int i = 0; i < ips.length; i++) {
            ips[i] = endpoints.get(i).ip();
        }
        Arrays.sort(ips);
        int distinct = 0;
        for (String ip : ips) {
            if (distinct == 0 || !ip.equals(ips[distinct - 1])) {
                ips[distinct++] = ip;
            }
        }
        return List.of(distinct == ips.length ? ips : Arrays.copyOf(ips, distinct));
    }

    static String portLabel(ServicePortInfo svc) {
        String name = svc.name().port();
        return (name.isEmpty() ? Integer.toString(svc.port()) : name) + "/" + svc.protocol();
    }

    private static PolicyWarning warn(ServicePortInfo svc, String reason, String message) {
        return new PolicyWarning("Service", svc.name().namespace(), svc.name().name(), reason, message);
    }

    private record LbSpec(LoadBalancerKind kind, String vip, int externalPort, List<String> backends,
                          int portMappingFlags) {
    }
}
