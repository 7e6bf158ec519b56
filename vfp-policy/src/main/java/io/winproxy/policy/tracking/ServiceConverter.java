package io.winproxy.policy.tracking;

import io.winproxy.policy.desired.PolicyWarning;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.Protocol;
import io.winproxy.policy.model.ServiceInfo;
import io.winproxy.policy.model.ServicePortInfo;
import io.winproxy.policy.model.ServicePortName;
import io.winproxy.policy.model.TrafficPolicy;
import io.winproxy.policy.net.IpAddresses;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Turns a {@link ServiceInfo} into its validated service ports (kube-proxy's {@code newBaseServiceInfo} plus
 * winproxy's input checks). Never throws on bad input: whatever is wrong is skipped and reported as a
 * {@link PolicyWarning} naming the Service; the rest of the Service is still used when possible.
 */
final class ServiceConverter {
    static final String PRESERVE_DESTINATION = "preserve-destination";
    static final String TOPOLOGY_MODE = "service.kubernetes.io/topology-mode";
    static final String TOPOLOGY_AWARE_HINTS = "service.kubernetes.io/topology-aware-hints";

    private ServiceConverter() {
    }

    /** The ports and warnings of one Service; an empty result for null. */
    record Converted(Map<ServicePortName, ServicePortInfo> ports, List<PolicyWarning> warnings) {
        static final Converted EMPTY = new Converted(Map.of(), List.of());

        Converted {
            ports = Map.copyOf(ports);
            warnings = List.copyOf(warnings);
        }
    }

    static Converted convert(ServiceInfo svc) {
        if (svc == null) {
            return Converted.EMPTY;
        }
        List<PolicyWarning> warnings = new ArrayList<>();
        if ("ExternalName".equals(svc.type())) {
            warnings.add(warn(svc, "ServiceNotProxied", "type ExternalName is not proxied; skipped"));
            return new Converted(Map.of(), warnings);
        }
        if (svc.clusterIps().isEmpty() || "None".equals(svc.clusterIps().get(0)) || svc.clusterIps().get(0).isEmpty()) {
            warnings.add(warn(svc, "ServiceNotProxied", "headless Service (no cluster IP) is not proxied; skipped"));
            return new Converted(Map.of(), warnings);
        }
        Map<IpFamily, String> clusterIps = new EnumMap<>(IpFamily.class);
        for (String raw : svc.clusterIps()) {
            Optional<String> ip = IpAddresses.canonical(raw);
            if (ip.isEmpty()) {
                warnings.add(warn(svc, "InvalidClusterIP", "spec.clusterIPs entry '" + raw
                        + "' is not an IP address; skipped"));
                continue;
            }
            clusterIps.putIfAbsent(IpFamily.of(ip.get()), ip.get());
        }
        for (String family : svc.ipFamilies()) {
            IpFamily f = "IPv6".equals(family) ? IpFamily.IPV6 : "IPv4".equals(family) ? IpFamily.IPV4 : null;
            if (f == null) {
                warnings.add(warn(svc, "InvalidIPFamily", "spec.ipFamilies entry '" + family
                        + "' is not IPv4 or IPv6; ignored"));
            } else if (!clusterIps.containsKey(f)) {
                warnings.add(warn(svc, "IPFamilyMismatch", "spec.ipFamilies lists " + family
                        + " but spec.clusterIPs has no " + family + " address; that family is not proxied"));
            }
        }
        if (clusterIps.isEmpty()) {
            warnings.add(warn(svc, "InvalidClusterIP", "no valid cluster IP; Service skipped"));
            return new Converted(Map.of(), warnings);
        }
        List<String> externalIps = familyFiltered(svc, svc.externalIps(), clusterIps, "spec.externalIPs", warnings);
        List<String> ingressIps = new ArrayList<>();
        for (ServiceInfo.LoadBalancerIngress ingress : svc.loadBalancerIngress()) {
            if (ingress.ip() == null || ingress.ip().isEmpty()) {
                continue; // hostname-only ingress: ignored, as upstream
            }
            if (ingress.ipMode() != null && !ingress.ipMode().isEmpty() && !"VIP".equals(ingress.ipMode())) {
                continue; // ipMode Proxy: the cloud load balancer proxies; not programmed on the node
            }
            ingressIps.add(ingress.ip());
        }
        List<String> lbIps = familyFiltered(svc, ingressIps, clusterIps, "status.loadBalancer.ingress", warnings);

        boolean clientIp = "ClientIP".equals(svc.sessionAffinity());
        int sticky = clientIp ? (svc.sessionAffinityTimeoutSeconds() > 0 ? svc.sessionAffinityTimeoutSeconds()
                : ServicePortInfo.DEFAULT_STICKY_MAX_AGE_SECONDS) : 0;
        boolean preserve = "true".equalsIgnoreCase(svc.annotations().getOrDefault(PRESERVE_DESTINATION, ""));
        String topologyMode = svc.annotations().containsKey(TOPOLOGY_AWARE_HINTS)
                ? svc.annotations().get(TOPOLOGY_AWARE_HINTS) : svc.annotations().getOrDefault(TOPOLOGY_MODE, "");
        String type = svc.type() == null || svc.type().isEmpty() ? "ClusterIP" : svc.type();

        Map<ServicePortName, ServicePortInfo> ports = new LinkedHashMap<>();
        for (ServiceInfo.ServicePortSpec spec : svc.ports()) {
            String portName = spec.name() == null ? "" : spec.name();
            String label = "port '" + (portName.isEmpty() ? Integer.toString(spec.port()) : portName) + "'";
            Optional<Protocol> protocol = Protocol.parse(spec.protocol());
            if (protocol.isEmpty() || protocol.get() == Protocol.SCTP) {
                warnings.add(warn(svc, "UnsupportedProtocol", label + ": protocol " + spec.protocol()
                        + " is not supported by HNS load balancers; port skipped"));
                continue;
            }
            if (spec.port() < 1 || spec.port() > 65535) {
                warnings.add(warn(svc, "InvalidServicePort", label + ": port " + spec.port()
                        + " is out of range 1-65535; port skipped"));
                continue;
            }
            if (spec.nodePort() < 0 || spec.nodePort() > 65535) {
                warnings.add(warn(svc, "InvalidServicePort", label + ": nodePort " + spec.nodePort()
                        + " is out of range; port skipped"));
                continue;
            }
            int targetPort = 0;
            String targetPortName = "";
            String tp = spec.targetPort();
            if (tp == null || tp.isEmpty()) {
                targetPort = spec.port();
            } else if (tp.chars().allMatch(Character::isDigit) && tp.length() <= 5) {
                targetPort = Integer.parseInt(tp);
                if (targetPort < 1 || targetPort > 65535) {
                    warnings.add(warn(svc, "InvalidServicePort", label + ": targetPort " + tp
                            + " is out of range 1-65535; port skipped"));
                    continue;
                }
            } else {
                targetPortName = tp;
            }
            ServicePortName spn = new ServicePortName(svc.namespace(), svc.name(), portName, protocol.get());
            if (ports.containsKey(spn)) {
                warnings.add(warn(svc, "DuplicateServicePort", label + "/" + protocol.get()
                        + " appears twice; the later entry is skipped"));
                continue;
            }
            int healthCheckNodePort = svc.healthCheckNodePort() > 0 && svc.healthCheckNodePort() <= 65535
                    ? svc.healthCheckNodePort() : 0;
            ports.put(spn, new ServicePortInfo(spn, type, clusterIps, spec.port(), targetPort, targetPortName,
                    spec.nodePort(), externalIps, lbIps, clientIp, sticky,
                    TrafficPolicy.parse(svc.internalTrafficPolicy()), TrafficPolicy.parse(svc.externalTrafficPolicy()),
                    healthCheckNodePort, svc.trafficDistribution(), preserve, topologyMode));
        }
        return new Converted(ports, warnings);
    }

    private static List<String> familyFiltered(ServiceInfo svc, List<String> raw, Map<IpFamily, String> clusterIps,
                                               String field, List<PolicyWarning> warnings) {
        TreeSet<String> out = new TreeSet<>();
        for (String value : raw) {
            Optional<String> ip = IpAddresses.canonical(value == null ? "" : value.trim());
            if (ip.isEmpty()) {
                warnings.add(warn(svc, "InvalidIP", field + " entry '" + value + "' is not an IP address; skipped"));
            } else if (!clusterIps.containsKey(IpFamily.of(ip.get()))) {
                warnings.add(warn(svc, "IPFamilyMismatch", field + " entry " + ip.get() + " is "
                        + familyName(IpFamily.of(ip.get())) + " but the Service has no cluster IP of that family;"
                        + " skipped"));
            } else {
                out.add(ip.get());
            }
        }
        return List.copyOf(out);
    }

    static String familyName(IpFamily family) {
        return family == IpFamily.IPV6 ? "IPv6" : "IPv4";
    }

    private static PolicyWarning warn(ServiceInfo svc, String reason, String message) {
        return new PolicyWarning("Service", svc.namespace(), svc.name(), reason, message);
    }
}
