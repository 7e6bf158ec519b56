package io.winproxy.policy.desired;

import java.util.Locale;
import java.util.Optional;

/** The HNS network types winproxy programs. */
public enum NetworkType {
    /** VXLAN overlay: remote endpoints carry a provider address; LBs use the source VIP. */
    OVERLAY,
    /** L2 bridge: remote endpoints without provider address; LBs have an empty source VIP. */
    L2BRIDGE;

    /** Parses an HNS network type ("Overlay", "L2Bridge"; case-insensitive). */
    public static Optional<NetworkType> parse(String hnsType) {
        if (hnsType == null) {
            return Optional.empty();
        }
        return switch (hnsType.toLowerCase(Locale.ROOT)) {
            case "overlay" -> Optional.of(OVERLAY);
            case "l2bridge" -> Optional.of(L2BRIDGE);
            default -> Optional.empty();
        };
    }
}
