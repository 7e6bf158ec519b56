package io.winproxy.policy.plan;

import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.LoadBalancerKey;
import java.util.List;

/**
 * The fingerprint of what winproxy writes for a load balancer: a 64-bit hash (16 hex digits) of the desired object
 * (key, internal port, source VIP, flags, port-mapping flags, distribution) and of every backend IP with the HNS
 * endpoint it was resolved to. The ownership journal records it per owned load balancer; a later sync whose desired
 * object and endpoint resolution give the same fingerprint knows the load balancer is up to date without reading it.
 * A backend's endpoint changing (a new remote endpoint for a new provider address, a recreated local endpoint, an
 * endpoint being created in this sync) changes the fingerprint, so the load balancer is re-programmed.
 */
public final class Fingerprints {
    /** The reference of a backend whose endpoint is created earlier in the same plan. */
    public static final String PENDING = "+";

    private Fingerprints() {
    }

    /**
     * @param endpointRefs per backend of {@code lb} (same order), the lower-case endpoint ID it resolves to, ""
     *                     when none, {@link #PENDING} when it is being created
     */
    public static String loadBalancer(DesiredLoadBalancer lb, List<String> endpointRefs) {
        return of(lb.key(), lb.internalPort(), lb.sourceVip(), lb.flags(), lb.portMappingFlags(),
                lb.distributionType(), lb.backends(), endpointRefs);
    }

    /**
     * The fingerprint of a load balancer as read from HNS, computed as if its fields were the desired ones and each
     * referenced endpoint resolved its backend IP: equal to the journal's fingerprint exactly when HNS holds what
     * winproxy wrote (every backend with an endpoint, no field dropped or changed on read-back). A drift check that
     * finds it equal knows the object did not drift without planning it; one that does not falls back to the full
     * comparison. Null when the document cannot say (no key, or an endpoint of another family or unknown).
     */
    public static String ofRead(ObservedLoadBalancer lb) {
        if (lb.key() == null || lb.backendIps().size() != lb.endpointIds().size()) {
            return null;
        }
        return of(lb.key(), lb.internalPort(), lb.sourceVip(), lb.flags(), lb.portMappingFlags(),
                lb.distributionType(), lb.backendIps(), lb.endpointIds());
    }

    private static String of(LoadBalancerKey key, int internalPort, String sourceVip,
                             int flags, int portMappingFlags, int distributionType, List<String> backends,
                             List<String> endpointRefs) {
        if (endpointRefs.size() != backends.size()) {
            throw new IllegalArgumentException("one endpoint reference per backend expected");
        }
        long h = 0xcbf29ce484222325L;
        h = mix(h, key.toString());
        h = mix(h, Integer.toString(internalPort));
        h = mix(h, sourceVip);
        h = mix(h, Integer.toString(flags));
        h = mix(h, Integer.toString(portMappingFlags));
        h = mix(h, Integer.toString(distributionType));
        for (int i = 0; i < endpointRefs.size(); i++) {
            h = mix(h, backends.get(i));
            h = mix(h, endpointRefs.get(i));
        }
        String hex = Long.toHexString(finish(h));
        return "0000000000000000".substring(hex.length()) + hex; // %016x without a Formatter per call
    }

    /** FNV-1a over the characters, then a separator so that ("ab","c") and ("a","bc") differ. */
    private static long mix(long h, String s) {
        for (int i = 0; i < s.length(); i++) {
            h ^= s.charAt(i);
            h *= 0x100000001b3L;
        }
        h ^= 0x1f;
        return h * 0x100000001b3L;
    }

    /** A final avalanche (MurmurHash3's fmix64) so that every input bit affects every output bit. */
    private static long finish(long h) {
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        return h ^ (h >>> 33);
    }
}
