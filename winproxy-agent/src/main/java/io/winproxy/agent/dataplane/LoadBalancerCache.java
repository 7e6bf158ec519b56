package io.winproxy.agent.dataplane;

import io.winproxy.hns.HnsClient;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * The host's load balancers, read cheaply. Each {@link #refresh} enumerates the IDs (one call), fetches the full
 * document only of IDs it has not seen, forgets vanished ones, and re-reads a rolling window of the owned load
 * balancers, oldest verification first. The window is proportional to the time since the previous refresh, so
 * that every owned load balancer is re-read at least once per {@code verifyPeriod} of elapsed time (and all of them
 * when a refresh comes a whole period after the previous one): a load balancer changed behind winproxy's back is
 * noticed within one sync period, while frequent syncs each re-read only a few.
 *
 * <p>Not thread-safe: used by the sync thread only.
 */
final class LoadBalancerCache {
    private record Entry(HostComputeLoadBalancer lb, long verifiedNanos) {
    }

    private final Duration verifyPeriod;
    private final LongSupplier nanoTime;
    private final Map<String, Entry> entries = new LinkedHashMap<>();
    private long lastRefreshNanos;
    private boolean refreshedOnce;
    private int lastFetches;

    LoadBalancerCache(Duration verifyPeriod, LongSupplier nanoTime) {
        this.verifyPeriod = verifyPeriod;
        this.nanoTime = nanoTime;
    }

    /**
     * Brings the cache in line with the host and returns every load balancer. {@code owned} selects the load
     * balancers whose content is re-verified.
     */
    List<HostComputeLoadBalancer> refresh(HnsClient hns, Predicate<String> owned) {
        long now = nanoTime.getAsLong();
        List<String> ids = hns.listLoadBalancerIds();
        Set<String> present = new HashSet<>(ids);
        entries.keySet().retainAll(present);
        int fetches = 0;
        for (String id : ids) {
            if (!entries.containsKey(id)) {
                fetches += fetch(hns, id, now);
            }
        }
        List<String> verifiable = new ArrayList<>();
        for (Map.Entry<String, Entry> e : entries.entrySet()) {
            if (owned.test(e.getKey()) && e.getValue().verifiedNanos() < now) {
                verifiable.add(e.getKey());
            }
        }
        int window = windowSize(verifiable.size(), now);
        verifiable.sort(Comparator.comparingLong((String id) -> entries.get(id).verifiedNanos()));
        for (String id : verifiable.subList(0, Math.min(window, verifiable.size()))) {
            fetches += fetch(hns, id, now);
        }
        lastRefreshNanos = now;
        refreshedOnce = true;
        lastFetches = fetches;
        List<HostComputeLoadBalancer> result = new ArrayList<>(entries.size());
        for (Entry e : entries.values()) {
            result.add(e.lb());
        }
        return result;
    }

    private int windowSize(int candidates, long now) {
        if (candidates == 0) {
            return 0;
        }
        if (!refreshedOnce || verifyPeriod.isZero()) {
            return candidates;
        }
        double share = (double) (now - lastRefreshNanos) / verifyPeriod.toNanos();
        int window = (int) Math.ceil(candidates * Math.min(1.0, share));
        // Also everything whose last verification is a whole period old.
        long stale = entries.values().stream().filter(e -> now - e.verifiedNanos() >= verifyPeriod.toNanos()).count();
        return Math.max(Math.max(1, window), (int) Math.min(candidates, stale));
    }

    private int fetch(HnsClient hns, String id, long now) {
        Optional<HostComputeLoadBalancer> lb = hns.getLoadBalancer(id);
        if (lb.isPresent()) {
            entries.put(id, new Entry(lb.get(), now));
        } else {
            entries.remove(id);
        }
        return 1;
    }

    /** Records a load balancer winproxy just created or modified, as HNS returned it. */
    void put(HostComputeLoadBalancer lb) {
        entries.put(lb.id(), new Entry(lb, nanoTime.getAsLong()));
    }

    void remove(String id) {
        entries.remove(id);
    }

    /** Forgets everything (the network was recreated or HNS restarted): the next refresh reads every document. */
    void clear() {
        entries.clear();
        refreshedOnce = false;
    }

    /** How many documents the last refresh fetched (for tests and debug logs). */
    int lastFetches() {
        return lastFetches;
    }
}
