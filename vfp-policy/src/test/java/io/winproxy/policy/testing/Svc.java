package io.winproxy.policy.testing;

import io.winproxy.policy.model.ServiceInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Test builder for {@link ServiceInfo}. */
public final class Svc {
    private final String namespace;
    private final String name;
    private String type = "ClusterIP";
    private final List<String> clusterIps = new ArrayList<>();
    private final List<String> ipFamilies = new ArrayList<>();
    private final List<ServiceInfo.ServicePortSpec> ports = new ArrayList<>();
    private final List<String> externalIps = new ArrayList<>();
    private final List<ServiceInfo.LoadBalancerIngress> ingress = new ArrayList<>();
    private String affinity = "None";
    private int timeout;
    private String itp;
    private String etp;
    private int hcnp;
    private String trafficDistribution;
    private final Map<String, String> annotations = new HashMap<>();

    private Svc(String namespace, String name) {
        this.namespace = namespace;
        this.name = name;
    }

    public static Svc svc(String namespace, String name) {
        return new Svc(namespace, name);
    }

    public Svc type(String value) {
        type = value;
        return this;
    }

    public Svc clusterIp(String... ips) {
        clusterIps.addAll(List.of(ips));
        return this;
    }

    public Svc ipFamilies(String... families) {
        ipFamilies.addAll(List.of(families));
        return this;
    }

    public Svc port(String portName, String protocol, int port, String targetPort, int nodePort) {
        ports.add(new ServiceInfo.ServicePortSpec(portName, protocol, port, targetPort, nodePort));
        return this;
    }

    public Svc port(String portName, int port, int targetPort) {
        return port(portName, "TCP", port, Integer.toString(targetPort), 0);
    }

    public Svc externalIp(String... ips) {
        externalIps.addAll(List.of(ips));
        return this;
    }

    public Svc ingress(String ip) {
        ingress.add(new ServiceInfo.LoadBalancerIngress(ip, null, null));
        return this;
    }

    public Svc ingress(String ip, String hostname, String ipMode) {
        ingress.add(new ServiceInfo.LoadBalancerIngress(ip, hostname, ipMode));
        return this;
    }

    public Svc clientIpAffinity(int timeoutSeconds) {
        affinity = "ClientIP";
        timeout = timeoutSeconds;
        return this;
    }

    public Svc itp(String value) {
        itp = value;
        return this;
    }

    public Svc etp(String value) {
        etp = value;
        return this;
    }

    public Svc healthCheckNodePort(int value) {
        hcnp = value;
        return this;
    }

    public Svc trafficDistribution(String value) {
        trafficDistribution = value;
        return this;
    }

    public Svc annotation(String key, String value) {
        annotations.put(key, value);
        return this;
    }

    public ServiceInfo build() {
        return new ServiceInfo(namespace, name, type, clusterIps, ipFamilies, ports, externalIps, ingress, affinity,
                timeout, itp, etp, hcnp, trafficDistribution, annotations);
    }
}
