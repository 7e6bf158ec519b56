package io.winproxy.agent.status;

import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the running agent remembers of each Service port it touched: when it last changed, when that change was
 * programmed, whether it is failing or pending, and its last HNS error. Entries exist only for ports something
 * happened to since the agent started (the first sync touches them all: one small record per port). Owned by the
 * sync thread (written after each sync, read by status requests run on that thread); not
 * thread-safe.
 */
public final class ProgrammingBook {
    /**
     * One port's record.
     *
     * @param lastChange    when a change of the port was first queued (the informer event), or null
     * @param programmedAt  when the change was programmed (the apply that completed the port), or null
     * @param failing       the port's last HNS step failed and is retried with backoff
     * @param pending       steps of the port wait (backing off, HNS unavailable, the journal not writable, or a
     *                      bounded sync that continues in its next chunk)
     * @param pendingReason why it is pending ("" when not)
     * @param nextTry       when the waiting step may run again, or null when not known
     * @param lastError     the last failure, decoded; kept after recovery
     * @param failingSince  when the current run of failures started, or null
     */
    public record Entry(Instant lastChange, Instant programmedAt, boolean failing, boolean pending,
                        String pendingReason, Instant nextTry, ServicePortStatus.LastError lastError,
                        Instant failingSince) {
        static final Entry EMPTY = new Entry(null, null, false, false, "", null, null, null);

        Entry changed(Instant at) {
            return new Entry(at, programmedAt, failing, pending, pendingReason, nextTry, lastError, failingSince);
        }

        Entry programmed(Instant at) {
            return new Entry(lastChange, at, false, false, "", null, lastError, null);
        }

        Entry failed(ServicePortStatus.LastError error, Instant retry, Instant at) {
            return new Entry(lastChange, programmedAt, true, false, "", retry, error,
                    failingSince == null ? at : failingSince);
        }

        Entry waiting(String reason, Instant retry) {
            return new Entry(lastChange, programmedAt, failing, !failing, failing ? "" : reason, retry, lastError,
                    failingSince);
        }
    }

    private final Map<String, Entry> entries = new HashMap<>();
    private final Set<String> unsettled = new HashSet<>();

    /** The entry of a service port ("ns/name:port"), or null when nothing happened to it. */
    public Entry get(String servicePort) {
        return entries.get(servicePort);
    }

    Entry getOrEmpty(String servicePort) {
        return entries.getOrDefault(servicePort, Entry.EMPTY);
    }

    void put(String servicePort, Entry entry) {
        entries.put(servicePort, entry);
        if (entry.failing() || entry.pending()) {
            unsettled.add(servicePort);
        } else {
            unsettled.remove(servicePort);
        }
    }

    void remove(String servicePort) {
        entries.remove(servicePort);
        unsettled.remove(servicePort);
    }

    /** The ports currently failing or pending (re-examined after every sync), a copy. */
    List<String> unsettled() {
        return List.copyOf(unsettled);
    }

    int size() {
        return entries.size();
    }
}
