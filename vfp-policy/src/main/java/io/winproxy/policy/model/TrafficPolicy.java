package io.winproxy.policy.model;

/** {@code internalTrafficPolicy} / {@code externalTrafficPolicy}. */
public enum TrafficPolicy {
    CLUSTER, LOCAL;

    /** "Local" (case-sensitive, as the API server validates) is LOCAL; anything else, including null, is CLUSTER. */
    public static TrafficPolicy parse(String value) {
        return "Local".equals(value) ? LOCAL : CLUSTER;
    }
}
