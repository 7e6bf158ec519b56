package io.winproxy.agent.kube;

import java.util.Collection;
import java.util.HashSet;
import java.util.Set;

/**
 * Decides when an informer's initial list has been <em>delivered</em> to the handler, not merely stored: fabric8
 * completes the informer's start once its cache holds the list, while notifications may still be queued. The
 * callback runs once, when every key in the cache at that moment has been delivered. Thread-safe.
 */
final class InitialListTracker {
    private final Runnable onDelivered;
    private final Set<String> delivered = new HashSet<>();
    private Set<String> listed;
    private boolean fired;

    InitialListTracker(Runnable onDelivered) {
        this.onDelivered = onDelivered;
    }

    /** A notification for {@code key} has been handed to the handler. */
    synchronized void delivered(String key) {
        if (!fired) {
            delivered.add(key);
            check();
        }
    }

    /** The informer's cache is populated with the initial list; these are its keys. */
    synchronized void listed(Collection<String> keys) {
        if (!fired && listed == null) {
            listed = new HashSet<>(keys);
            check();
        }
    }

    synchronized boolean isDone() {
        return fired;
    }

    private void check() {
        if (listed != null && delivered.containsAll(listed)) {
            fired = true;
            delivered.clear();
            listed = null;
            onDelivered.run();
        }
    }
}
