package io.winproxy.hns;

import java.util.List;

/**
 * The HNS features of hcsshim's {@code hcnsupport.go}, each with the HNS version ranges that enable it
 * (hcn-api.md section 3). A feature is on when the version lies in any of its ranges. Where hnslib (the fork
 * upstream kube-proxy now uses) gates a feature more narrowly than hcsshim, the narrower range is used.
 */
public enum HnsFeature {
    API_V2("Api.V2", from(9, 2)),
    ACL_ADDRESS_LISTS("Acl.AclAddressLists", from(7, 2)),
    REMOTE_SUBNET("RemoteSubnet", from(9, 2)),
    HOST_ROUTE("HostRoute", from(9, 2)),
    DSR("DSR", range(9, 3, 9, Integer.MAX_VALUE), from(10, 2)),
    SLASH32_ENDPOINT_PREFIXES("Slash32EndpointPrefixes", range(9, 3, 9, Integer.MAX_VALUE), from(10, 4)),
    ACL_SUPPORT_FOR_PROTOCOL_252("AclSupportForProtocol252", from(11, 0)),
    VXLAN_PORT("VxlanPort", from(10, 3)),
    IPV6_DUAL_STACK("IPv6DualStack", from(11, 10)),
    SESSION_AFFINITY("SessionAffinity", from(12, 0)),
    L4_PROXY("L4Proxy", range(9, 5, 9, Integer.MAX_VALUE), range(10, 5, 10, Integer.MAX_VALUE),
            range(11, 11, 11, Integer.MAX_VALUE), range(12, 1, 12, Integer.MAX_VALUE), from(13, 1)),
    SET_POLICY("SetPolicy", from(13, 0)),
    L4_WFP_PROXY("L4WfpProxy", from(13, 2)),
    TIER_ACL("TierAcl", from(14, 0)),
    NETWORK_ACL("NetworkACL", from(15, 0)),
    NESTED_IP_SET("NestedIpSet", from(15, 0)),
    DISABLE_HOST_PORT("DisableHostPort", from(15, 1)),
    /**
     * {@code HcnModifyLoadBalancer}: HNS 15.5-15.x and 16.0 and later, as hnslib gates it. hcsshim enables it from
     * 15.4, but on 15.4 (Windows Server 2025) a modify reports success and keeps the old backends
     * (kubernetes#131466), so there a load balancer must be deleted and created instead.
     */
    MODIFY_LOADBALANCER("ModifyLoadbalancer", range(15, 5, 15, Integer.MAX_VALUE), from(16, 0)),
    ACCELNET("Accelnet", from(15, 4));

    private final String hcsshimName;
    private final List<VersionRange> ranges;

    HnsFeature(String hcsshimName, VersionRange... ranges) {
        this.hcsshimName = hcsshimName;
        this.ranges = List.of(ranges);
    }

    /** The name hcsshim uses in {@code SupportedFeatures} and its "platform does not support feature" errors. */
    public String hcsshimName() {
        return hcsshimName;
    }

    public List<VersionRange> ranges() {
        return ranges;
    }

    public boolean isSupportedBy(HnsVersion version) {
        return version != null && ranges.stream().anyMatch(r -> r.contains(version));
    }

    private static VersionRange from(int major, int minor) {
        return new VersionRange(new HnsVersion(major, minor),
                new HnsVersion(Integer.MAX_VALUE, Integer.MAX_VALUE));
    }

    private static VersionRange range(int minMajor, int minMinor, int maxMajor, int maxMinor) {
        return new VersionRange(new HnsVersion(minMajor, minMinor), new HnsVersion(maxMajor, maxMinor));
    }

    /** An inclusive version range, tested as hcsshim's {@code isFeatureInRange} does. */
    public record VersionRange(HnsVersion min, HnsVersion max) {
        public boolean contains(HnsVersion v) {
            if (v.major() < min.major() || v.major() > max.major()) {
                return false;
            }
            if (v.major() == min.major() && v.minor() < min.minor()) {
                return false;
            }
            return v.major() != max.major() || v.minor() <= max.minor();
        }
    }
}
