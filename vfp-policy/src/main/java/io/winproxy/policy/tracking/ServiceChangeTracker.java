package io.winproxy.policy.tracking;

import io.winproxy.policy.model.ServiceInfo;
import java.util.HashMap;
import java.util.Map;

/**
 * Accumulates Service changes between syncs, coalesced per namespace/name (kube-proxy's
 * {@code ServiceChangeTracker}): the first un-synced {@code previous} and the latest {@code current} are kept, and a
 * pair whose processed service ports are equal is dropped (a no-op, a change to fields the proxy ignores, or a
 * change reverted before the sync). Services are validated here; see {@link ProxyState} for how changes are applied.
 *
 * <p>Thread-safe: informer threads call {@link #update}, the sync thread checks changes out through
 * {@link ProxyState#applyChanges}.
 */
public final class ServiceChangeTracker {

    /** A pending change of one Service. */
    record Change(ServiceConverter.Converted previous, ServiceConverter.Converted current) {
    }

    private Map<String, Change> pending = new HashMap<>();

    /**
     * Records a Service event: add is {@code (null, svc)}, update {@code (old, new)}, delete {@code (svc, null)}.
     *
     * @return true when any Service change is pending after this update (possibly from an earlier update)
     */
    public synchronized boolean update(ServiceInfo previous, ServiceInfo current) {
        ServiceInfo any = current != null ? current : previous;
        if (any == null) {
            return !pending.isEmpty();
        }
        String key = any.key();
        Change existing = pending.get(key);
        ServiceConverter.Converted prev = existing != null ? existing.previous() : ServiceConverter.convert(previous);
        ServiceConverter.Converted curr = ServiceConverter.convert(current);
        if (prev.equals(curr)) {
            pending.remove(key);
        } else {
            pending.put(key, new Change(prev, curr));
        }
        return !pending.isEmpty();
    }

    /** The number of Services with a pending change (the {@code service_changes_pending} metric). */
    public synchronized int pendingCount() {
        return pending.size();
    }

    /** Takes every pending change and resets the tracker. */
    synchronized Map<String, Change> checkout() {
        Map<String, Change> out = pending;
        pending = new HashMap<>();
        return out;
    }
}
