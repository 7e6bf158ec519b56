package io.winproxy.policy.plan;

import java.util.List;

/**
 * An HNS endpoint as observed on the host, in policy vocabulary.
 *
 * @param ips             the endpoint's IPs (at most one per family)
 * @param remote          the HNS RemoteEndpoint flag; a local endpoint belongs to the CNI and is never deleted
 * @param providerAddress the ProviderAddress policy of a remote overlay endpoint, or empty
 */
public record ObservedEndpoint(String id, List<String> ips, boolean remote, String providerAddress) {
    public ObservedEndpoint {
        ips = List.copyOf(ips);
        providerAddress = providerAddress == null ? "" : providerAddress;
    }
}
