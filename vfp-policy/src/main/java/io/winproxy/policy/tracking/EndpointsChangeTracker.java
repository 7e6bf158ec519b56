package io.winproxy.policy.tracking;

import io.winproxy.policy.desired.PolicyWarning;
import io.winproxy.policy.model.EndpointSliceInfo;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Accumulates EndpointSlice changes between syncs (kube-proxy's {@code EndpointsChangeTracker}) in an
 * {@link EndpointSliceCache}, and records the {@code endpoints.kubernetes.io/last-change-trigger-time} of changing
 * events for the network-programming-latency metric. FQDN slices, slices without the
 * {@code kubernetes.io/service-name} label and slices without namespace or name are ignored.
 *
 * <p>Thread-safe: informer threads call {@link #update}, the sync thread checks out through
 * {@link ProxyState#applyChanges}.
 */
public final class EndpointsChangeTracker {
    private static final Logger logger = LoggerFactory.getLogger(EndpointsChangeTracker.class);

    private final EndpointSliceCache cache;
    private final Instant startTime;
    private Map<String, List<Instant>> triggerTimes = new HashMap<>();
    private final Map<String, PolicyWarning> ignoredSlices = new TreeMap<>();
    private int pendingEvents;

    /**
     * @param nodeName  this node's name (endpoints on it are local)
     * @param startTime when the tracker was created; older trigger times are not reported (they predate this process)
     */
    public EndpointsChangeTracker(String nodeName, Instant startTime) {
        this.cache = new EndpointSliceCache(nodeName);
        this.startTime = startTime;
    }

    /**
     * Records an EndpointSlice event: add is {@code (null, slice)}, update {@code (old, new)}, delete
     * {@code (slice, null)}. A slice whose service-name label changed is removed from its old Service.
     *
     * @return true only when this event changed something
     */
    public synchronized boolean update(EndpointSliceInfo previous, EndpointSliceInfo current) {
        trackIgnored(previous, current);
        boolean changed = false;
        if (current == null) {
            if (previous != null && accepted(previous)) {
                changed = cache.updatePending(previous, true);
                if (changed) {
                    pendingEvents++;
                    triggerTimes.remove(EndpointSliceCache.serviceKey(previous));
                }
            }
            return changed;
        }
        if (previous != null && accepted(previous) && !EndpointSliceCache.serviceKey(previous)
                .equals(EndpointSliceCache.serviceKey(current))) {
            changed = cache.updatePending(previous, true);
        }
        if (!accepted(current)) {
            return changed;
        }
        boolean sliceChanged = cache.updatePending(current, false);
        if (changed || sliceChanged) {
            pendingEvents++;
        }
        if (sliceChanged) {
            Instant t = current.lastChangeTriggerTime();
            if (t != null && t.isAfter(startTime)) {
                triggerTimes.computeIfAbsent(EndpointSliceCache.serviceKey(current), k -> new ArrayList<>()).add(t);
            }
        }
        return changed || sliceChanged;
    }

    /** True when some slice change is pending. */
    public synchronized boolean hasPending() {
        return cache.hasPending();
    }

    /** Changing slice events since the last apply (the {@code endpoint_changes_pending} metric counts events). */
    public synchronized int pendingCount() {
        return pendingEvents;
    }

    /**
     * Warnings naming the slices of a Service that are ignored because of their address type (FQDN), in slice-key
     * order; they change no endpoints, so {@link ProxyState} reports them with the other input warnings.
     */
    public synchronized List<PolicyWarning> ignoredSliceWarnings() {
        return List.copyOf(ignoredSlices.values());
    }

    private void trackIgnored(EndpointSliceInfo previous, EndpointSliceInfo current) {
        if (previous != null) {
            ignoredSlices.remove(previous.key());
        }
        if (current == null) {
            return;
        }
        ignoredSlices.remove(current.key());
        boolean labelled = current.serviceName() != null && !current.serviceName().isEmpty();
        if (labelled && !"IPv4".equals(current.addressType()) && !"IPv6".equals(current.addressType())) {
            ignoredSlices.put(current.key(), new PolicyWarning("EndpointSlice", current.namespace(), current.name(),
                    "UnsupportedAddressType", "addressType " + current.addressType() + " is not proxied (only IPv4"
                    + " and IPv6 slices are); slice ignored for Service " + current.serviceName()));
        }
    }

    private static boolean accepted(EndpointSliceInfo slice) {
        if (!"IPv4".equals(slice.addressType()) && !"IPv6".equals(slice.addressType())) {
            return false; // FQDN (or unknown) slices are not proxied
        }
        if (slice.serviceName() == null || slice.serviceName().isEmpty() || slice.namespace() == null
                || slice.namespace().isEmpty() || slice.name() == null || slice.name().isEmpty()) {
            logger.atDebug().setMessage("Ignoring an EndpointSlice without service-name label, namespace or name")
                    .addKeyValue("endpointSlice", slice.key()).log();
            return false;
        }
        return true;
    }

    /** The checked-out changes of one sync. */
    record Checkout(Map<String, EndpointSliceCache.Change> changes, Map<String, List<Instant>> triggerTimes) {
    }

    synchronized Checkout checkout() {
        Map<String, List<Instant>> times = triggerTimes;
        triggerTimes = new HashMap<>();
        pendingEvents = 0;
        return new Checkout(cache.checkoutChanges(), times);
    }
}
