package io.winproxy.hns.model;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Optional;

/**
 * The settings of a network's {@code RemoteSubnetRoute} policy: pods in {@code destinationPrefix} live on the host
 * whose provider address is {@code providerAddress} (overlay/VXLAN). {@code isolationId} is the VXLAN VNI (4096 for
 * flannel's default). Empty strings and zero mean "not set".
 */
public record RemoteSubnetRoute(String destinationPrefix, int isolationId, String providerAddress,
                                String distributedRouterMacAddress) {
    public RemoteSubnetRoute {
        destinationPrefix = destinationPrefix == null ? "" : destinationPrefix;
        providerAddress = providerAddress == null ? "" : providerAddress;
        distributedRouterMacAddress = distributedRouterMacAddress == null ? "" : distributedRouterMacAddress;
    }

    /** Reads a policy of type {@code RemoteSubnetRoute}; empty for any other type. */
    public static Optional<RemoteSubnetRoute> from(HcnPolicy policy) {
        if (policy == null || !policy.isType(HcnPolicy.REMOTE_SUBNET_ROUTE)) {
            return Optional.empty();
        }
        return Optional.of(new RemoteSubnetRoute(
                policy.setting("DestinationPrefix").orElse(""),
                Settings.integer(policy.settings(), "IsolationId"),
                policy.setting("ProviderAddress").orElse(""),
                policy.setting("DistributedRouterMacAddress").orElse("")));
    }

    /** The policy document, members in hcsshim's order, unset members omitted. */
    public HcnPolicy toPolicy() {
        ObjectNode s = Settings.object();
        Settings.putIfSet(s, "DestinationPrefix", destinationPrefix);
        Settings.putIfSet(s, "IsolationId", isolationId);
        Settings.putIfSet(s, "ProviderAddress", providerAddress);
        Settings.putIfSet(s, "DistributedRouterMacAddress", distributedRouterMacAddress);
        return new HcnPolicy(HcnPolicy.REMOTE_SUBNET_ROUTE, s);
    }
}
