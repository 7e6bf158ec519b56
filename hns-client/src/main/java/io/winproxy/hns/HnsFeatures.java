package io.winproxy.hns;

import java.util.EnumSet;
import java.util.Set;

/** Feature detection from the HNS version (hcsshim {@code hcnsupport.go}, hcn-api.md section 3). */
public final class HnsFeatures {
    /** What a failed version probe yields: version 0.0 and every feature off (hcsshim does the same). */
    public static final HnsVersion UNKNOWN_VERSION = new HnsVersion(0, 0);

    private HnsFeatures() {
    }

    /** The capabilities of an HNS that reports {@code version}. */
    public static HnsCapabilities forVersion(HnsVersion version) {
        return new HnsCapabilities(version,
                HnsFeature.DSR.isSupportedBy(version),
                HnsFeature.IPV6_DUAL_STACK.isSupportedBy(version),
                HnsFeature.SESSION_AFFINITY.isSupportedBy(version),
                HnsFeature.MODIFY_LOADBALANCER.isSupportedBy(version),
                HnsFeature.REMOTE_SUBNET.isSupportedBy(version));
    }

    /** Capabilities when the version could not be probed: every feature off. */
    public static HnsCapabilities unknown() {
        return forVersion(UNKNOWN_VERSION);
    }

    /** Every feature the version enables. */
    public static Set<HnsFeature> supported(HnsVersion version) {
        Set<HnsFeature> on = EnumSet.noneOf(HnsFeature.class);
        for (HnsFeature f : HnsFeature.values()) {
            if (f.isSupportedBy(version)) {
                on.add(f);
            }
        }
        return on;
    }
}
