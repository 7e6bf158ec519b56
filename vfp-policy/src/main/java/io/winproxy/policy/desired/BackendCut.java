package io.winproxy.policy.desired;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Which backends a load balancer keeps when it has more than a limit allows (winproxy's own bound, or the limit HNS
 * showed or was configured with): this node's endpoints first (a local backend needs no remote endpoint and keeps
 * serving when the overlay does not), then the others in IP text order, so that the choice is the same on every sync
 * and does not depend on the order endpoints arrived in. The kept backends stay in their original order.
 */
public final class BackendCut {
    private BackendCut() {
    }

    /**
     * The first {@code max} of {@code backends} (sorted as text, distinct) with the local ones first, in their
     * original order; {@code backends} itself when within the limit.
     */
    public static List<String> keep(List<String> backends, Predicate<String> local, int max) {
        if (backends.size() <= max) {
            return backends;
        }
        Set<String> kept = new HashSet<>();
        for (String ip : backends) {
            if (kept.size() < max && local.test(ip)) {
                kept.add(ip);
            }
        }
        for (String ip : backends) {
            if (kept.size() >= max) {
                break;
            }
            kept.add(ip);
        }
        List<String> out = new ArrayList<>(max);
        for (String ip : backends) {
            if (kept.contains(ip)) {
                out.add(ip);
            }
        }
        return out;
    }

    /** The backends {@link #keep} leaves out, in their original order. */
    public static List<String> cut(List<String> backends, List<String> kept) {
        if (kept.size() == backends.size()) {
            return List.of();
        }
        Set<String> in = new HashSet<>(kept);
        return backends.stream().filter(ip -> !in.contains(ip)).toList();
    }
}
