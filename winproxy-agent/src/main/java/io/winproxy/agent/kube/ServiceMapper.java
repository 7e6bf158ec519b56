package io.winproxy.agent.kube;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import io.fabric8.kubernetes.api.model.ServiceStatus;
import io.winproxy.policy.model.ServiceInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Maps a fabric8 {@link Service} to {@link ServiceInfo}. Never throws: a malformed part (null spec, a port without
 * a number) is dropped with a warning naming the Service; an object without a name maps to empty. Stateless and
 * thread-safe.
 */
public final class ServiceMapper extends KubeObjectMapper<Service, ServiceInfo> {
    /** @param warnings receives one line per dropped part, naming the Service (the log: {@link #loggedWarnings()}) */
    public ServiceMapper(Consumer<String> warnings) {
        super("Service", true, warnings);
    }

    @Override
    protected ServiceInfo mapNamed(Service service, ObjectMeta meta, String id) {
        String namespace = namespace(meta);
        ServiceSpec spec = service.getSpec();
        if (spec == null) {
            warnings.accept(id + ": no spec; mapped with no ports");
            spec = new ServiceSpec();
        }
        List<String> clusterIps = spec.getClusterIPs() != null && !spec.getClusterIPs().isEmpty()
                ? spec.getClusterIPs()
                : spec.getClusterIP() == null || spec.getClusterIP().isEmpty() ? List.of() : List.of(spec.getClusterIP());
        int affinityTimeout = 0;
        if (spec.getSessionAffinityConfig() != null && spec.getSessionAffinityConfig().getClientIP() != null
                && spec.getSessionAffinityConfig().getClientIP().getTimeoutSeconds() != null) {
            affinityTimeout = spec.getSessionAffinityConfig().getClientIP().getTimeoutSeconds();
        }
        return new ServiceInfo(namespace, meta.getName(),
                spec.getType() == null ? "ClusterIP" : SharedStrings.of(spec.getType()),
                withoutNulls(clusterIps), withoutNulls(spec.getIpFamilies()).stream().map(SharedStrings::of).toList(), ports(id, spec.getPorts()),
                withoutNulls(spec.getExternalIPs()), ingress(service.getStatus()),
                spec.getSessionAffinity() == null ? "None" : SharedStrings.of(spec.getSessionAffinity()),
                affinityTimeout, SharedStrings.of(spec.getInternalTrafficPolicy()),
                SharedStrings.of(spec.getExternalTrafficPolicy()),
                spec.getHealthCheckNodePort() == null ? 0 : spec.getHealthCheckNodePort(),
                spec.getTrafficDistribution(), readAnnotations(meta.getAnnotations()));
    }

    private List<ServiceInfo.ServicePortSpec> ports(String id, List<ServicePort> ports) {
        List<ServiceInfo.ServicePortSpec> result = new ArrayList<>();
        if (ports == null) {
            return result;
        }
        for (ServicePort p : ports) {
            if (p == null) {
                continue;
            }
            if (p.getPort() == null) {
                warnings.accept(id + ": port " + (p.getName() == null ? "(unnamed)" : p.getName())
                        + " has no port number; dropped");
                continue;
            }
            result.add(new ServiceInfo.ServicePortSpec(p.getName() == null ? "" : SharedStrings.of(p.getName()),
                    SharedStrings.of(p.getProtocol()),
                    p.getPort(), targetPort(p.getTargetPort()), p.getNodePort() == null ? 0 : p.getNodePort()));
        }
        return result;
    }

    /** IntOrString as text: "8080" or "http"; null when unset. */
    static String targetPort(IntOrString value) {
        if (value == null) {
            return null;
        }
        if (value.getIntVal() != null) {
            return Integer.toString(value.getIntVal());
        }
        return value.getStrVal();
    }

    private static List<ServiceInfo.LoadBalancerIngress> ingress(ServiceStatus status) {
        List<ServiceInfo.LoadBalancerIngress> result = new ArrayList<>();
        if (status == null || status.getLoadBalancer() == null || status.getLoadBalancer().getIngress() == null) {
            return result;
        }
        for (LoadBalancerIngress i : status.getLoadBalancer().getIngress()) {
            if (i != null) {
                result.add(new ServiceInfo.LoadBalancerIngress(i.getIp(), i.getHostname(), i.getIpMode()));
            }
        }
        return result;
    }

    static List<String> withoutNulls(List<String> values) {
        if (values == null) {
            return List.of();
        }
        return values.stream().filter(v -> v != null && !v.isEmpty()).toList();
    }

    /**
     * The annotations the proxy reads ({@link ServiceInfo#READ_ANNOTATIONS}); the others are not kept, so that
     * they cost no heap and a change to one of them is no change to the proxy.
     */
    static Map<String, String> readAnnotations(Map<String, String> map) {
        if (map == null || map.isEmpty()) {
            return Map.of();
        }
        Map<String, String> result = new HashMap<>();
        for (String key : ServiceInfo.READ_ANNOTATIONS) {
            String value = map.get(key);
            if (value != null) {
                result.put(key, value);
            }
        }
        return result;
    }

    static Map<String, String> withoutNullValues(Map<String, String> map) {
        if (map == null) {
            return Map.of();
        }
        Map<String, String> result = new HashMap<>();
        map.forEach((k, v) -> {
            if (k != null && v != null) {
                result.put(k, v);
            }
        });
        return result;
    }
}
