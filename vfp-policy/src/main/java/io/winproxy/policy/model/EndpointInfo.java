package io.winproxy.policy.model;

import java.util.Set;

/**
 * One endpoint of a service port, as merged from EndpointSlices (kube-proxy's {@code BaseEndpointInfo}).
 *
 * @param ip          canonical IP ({@code addresses[0]} of the slice endpoint)
 * @param port        the slice port's number
 * @param nodeName    the endpoint's node, "" when unknown
 * @param zone        the endpoint's zone, "" when unknown
 * @param local       the endpoint's node is this node (Kubernetes view)
 * @param ready       condition ready (null in the API means true)
 * @param serving     condition serving (null in the API means "same as ready")
 * @param terminating condition terminating (null means false)
 * @param zoneHints   {@code hints.forZones[].name}
 * @param nodeHints   {@code hints.forNodes[].name}
 */
public record EndpointInfo(String ip, int port, String nodeName, String zone, boolean local, boolean ready,
                           boolean serving, boolean terminating, Set<String> zoneHints, Set<String> nodeHints) {
    public EndpointInfo {
        nodeName = nodeName == null ? "" : nodeName;
        zone = zone == null ? "" : zone;
        zoneHints = zoneHints == null ? Set.of() : Set.copyOf(zoneHints);
        nodeHints = nodeHints == null ? Set.of() : Set.copyOf(nodeHints);
    }

    /** A ready, serving, non-terminating endpoint without hints (convenient for tests and tools). */
    public static EndpointInfo readyEndpoint(String ip, int port, String nodeName, boolean local) {
        return new EndpointInfo(ip, port, nodeName, "", local, true, true, false, Set.of(), Set.of());
    }

    /** The endpoint's family. */
    public IpFamily family() {
        return IpFamily.of(ip);
    }

    /** Serving and terminating: usable only as a fallback when nothing is ready. */
    public boolean servingTerminating() {
        return serving && terminating;
    }

    /** "ip:port", or "[ip]:port" for IPv6 (the endpoint's identity within a service port). */
    public String key() {
        return family() == IpFamily.IPV6 ? "[" + ip + "]:" + port : ip + ":" + port;
    }
}
