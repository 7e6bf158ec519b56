package io.winproxy.hns;

import java.util.Set;

/**
 * The HNS version and the features it enables (hcsshim {@code hcnsupport.go}); build it with
 * {@link HnsFeatures#forVersion(HnsVersion)}. The agent and the policy read features through these accessors only.
 * The components are the features winproxy decides on; every other feature (API v2, host route, VXLAN port, ...)
 * is derived from {@link #version()}: ask {@link #supports(HnsFeature)}.
 * {@code modifyLoadBalancer} is {@link HnsFeature#MODIFY_LOADBALANCER}: HNS 15.5 and later, not 15.4 (Windows Server
 * 2025), where an in-place modify silently keeps the old backends.
 */
public record HnsCapabilities(HnsVersion version, boolean dsr, boolean ipv6DualStack, boolean sessionAffinity,
                              boolean modifyLoadBalancer, boolean remoteSubnet) {

    /** Whether the version enables {@code feature} (any of the hcsshim features, not only the components). */
    public boolean supports(HnsFeature feature) {
        return feature.isSupportedBy(version);
    }

    /** Every feature the version enables. */
    public Set<HnsFeature> features() {
        return HnsFeatures.supported(version);
    }
}
