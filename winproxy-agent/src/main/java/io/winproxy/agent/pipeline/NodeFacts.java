package io.winproxy.agent.pipeline;

import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.policy.net.IpAddresses;
import java.util.StringJoiner;

/**
 * What the pipeline needs to know about this node that is not a Kubernetes object: its name, the HNS network to
 * program, the overlay source VIP, the name of the root endpoint health checks forward to, and the node-IP override.
 * The proxy takes them from its configuration ({@link #of}); {@code plan}, {@code trace} and {@code demo} derive the
 * ones the user left out from their inputs (the manifests' node, the emulated network) instead of rewriting the
 * parsed flags.
 *
 * @param nodeName         this node's name, lower-case
 * @param networkName      the HNS network
 * @param sourceVip        the overlay SNAT address, "" when none
 * @param rootEndpointName {@code --root-hnsendpoint-name}
 * @param nodeIpOverride   the concrete IPs of {@code --bind-address} (one, or one per family, comma-separated), else
 *                         "" ({@link #nodeIpOverride(String)})
 */
public record NodeFacts(String nodeName, String networkName, String sourceVip, String rootEndpointName,
                        String nodeIpOverride) {
    public NodeFacts {
        sourceVip = sourceVip == null ? "" : sourceVip;
        rootEndpointName = rootEndpointName == null ? "" : rootEndpointName;
        nodeIpOverride = nodeIpOverride == null ? "" : nodeIpOverride;
    }

    /** The facts as the proxy's configuration gives them, on the given network. */
    public static NodeFacts of(ProxyConfig config, String networkName) {
        return new NodeFacts(config.hostnameOverride(), networkName, config.sourceVip(), config.rootHnsEndpointName(),
                nodeIpOverride(config.bindAddress()));
    }

    public NodeFacts withNodeName(String name) {
        return new NodeFacts(name, networkName, sourceVip, rootEndpointName, nodeIpOverride);
    }

    public NodeFacts withNetworkName(String name) {
        return new NodeFacts(nodeName, name, sourceVip, rootEndpointName, nodeIpOverride);
    }

    public NodeFacts withSourceVip(String vip) {
        return new NodeFacts(nodeName, networkName, vip, rootEndpointName, nodeIpOverride);
    }

    public NodeFacts withRootEndpointName(String name) {
        return new NodeFacts(nodeName, networkName, sourceVip, name, nodeIpOverride);
    }

    /**
     * The node IPs {@code bindAddress} overrides, comma-separated: its concrete IPs, in order (an IP, or a dual-stack
     * pair), in canonical text (as HNS's addresses are compared); an unspecified one ({@code 0.0.0.0}, {@code ::})
     * overrides nothing. "" when none is concrete. As upstream, each overrides the node IP of its own family only; the
     * other family's still comes from the Node object.
     */
    public static String nodeIpOverride(String bindAddress) {
        if (bindAddress == null || bindAddress.isEmpty()) {
            return "";
        }
        StringJoiner concrete = new StringJoiner(",");
        for (String ip : bindAddress.split(",")) {
            IpAddresses.parse(ip.trim()).filter(NodeFacts::isSpecified)
                    .ifPresent(bytes -> concrete.add(IpAddresses.format(bytes)));
        }
        return concrete.toString();
    }

    private static boolean isSpecified(byte[] address) {
        for (byte b : address) {
            if (b != 0) {
                return true;
            }
        }
        return false;
    }
}
