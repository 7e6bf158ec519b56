package io.winproxy.hns;

/**
 * The HNS version and the features it enables (hcsshim {@code hcnsupport.go}). The feature table is completed by
 * the hns-client work; the agent and the policy read features through these accessors only.
 */
public record HnsCapabilities(HnsVersion version, boolean dsr, boolean ipv6DualStack, boolean sessionAffinity,
                              boolean modifyLoadBalancer, boolean remoteSubnet) {
}
