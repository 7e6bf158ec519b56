package io.winproxy.agent.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.winproxy.agent.fatal.FatalErrors;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One kind watched through a fabric8 informer whose objects are mapped to plain values before they reach a handler.
 * Add, update and delete (tombstones resolved) become {@code (previous, current)} pairs; updates that map to equal
 * values (resyncs, status-only changes the proxy does not read) are dropped. Exceptions from the mapper or the
 * handler are logged, never thrown into fabric8.
 *
 * <p>List and watch failures are retried for ever with fabric8's backoff and reported to the
 * {@link ApiServerMonitor}, which logs the outage once; a failed list never produces deletions, because the cache is
 * only replaced by a successful list. As a monitor {@link ApiServerMonitor.Target}, {@link #relist()} replaces the
 * informer by a fresh one seeded with the current cache, which lists and watches at once: objects deleted meanwhile
 * arrive as deletes, changed ones as updates, unchanged ones not at all.
 *
 * <p>Heap: the informer's cache is a {@link KeyOnlyItemStore} (keys and resource versions only, no namespace index);
 * the previous value of an update or delete is the value last delivered for that key, kept here. So each watched
 * object is held once, as its compact mapped value, never as the fabric8 object the API server sent.
 *
 * @param <T> the fabric8 type
 * @param <V> the plain value type
 */
final class MappedInformer<T extends HasMetadata, V> implements ApiServerMonitor.Target, AutoCloseable {
    private static final Logger logger = LoggerFactory.getLogger(MappedInformer.class);

    private final String kind;
    private final Supplier<SharedIndexInformer<T>> informers;
    private final Supplier<T> blank;
    /** The value last delivered for each key ("namespace/name"): the {@code previous} of its next change. */
    private final Map<String, V> delivered = new ConcurrentHashMap<>();
    private final Runnable probe;
    private final Function<T, Optional<V>> mapper;
    /** Replaced by a no-op on close: fabric8 may keep a stopped informer reachable for a while (a cancelled resync
     * task waits in its scheduler), and it must not keep the handler (the whole agent) reachable with it. */
    private volatile BiConsumer<V, V> handler;
    private volatile Runnable onSynced;
    private final ApiServerMonitor monitor;
    private final InitialListTracker initialList;
    private volatile SharedIndexInformer<T> informer;
    private volatile boolean closed;

    /**
     * @param informers builds a new, not yet started informer of this kind (with its selectors) each call
     * @param blank     a new, empty object of the kind ({@code Service::new}), for the informer cache's shells
     * @param probe     one cheap list of this kind (limit 1) that throws when the API server cannot serve it
     * @param onSynced  runs once, after the initial list has been delivered to {@code handler}
     */
    MappedInformer(String kind, Supplier<SharedIndexInformer<T>> informers, Supplier<T> blank, Runnable probe,
                   Function<T, Optional<V>> mapper, BiConsumer<V, V> handler, Runnable onSynced,
                   ApiServerMonitor monitor) {
        this.kind = kind;
        this.informers = informers;
        this.blank = blank;
        this.probe = probe;
        this.mapper = mapper;
        this.handler = handler;
        this.onSynced = onSynced;
        this.monitor = monitor;
        this.initialList = new InitialListTracker(() -> {
            logger.atInfo().setMessage("Initial list delivered").addKeyValue("kind", kind).log();
            safely(this.onSynced, "synced callback");
        });
    }

    /** Starts list and watch in the background; returns at once. */
    synchronized void start() {
        if (!closed && informer == null) {
            run(newInformer());
        }
    }

    @Override
    public String kind() {
        return kind;
    }

    @Override
    public void probe() {
        probe.run();
    }

    /** Replaces the informer by a fresh one seeded with the current cache; it lists and watches at once. */
    @Override
    public synchronized void relist() {
        SharedIndexInformer<T> old = informer;
        if (closed || old == null) {
            return;
        }
        List<T> known = old.getStore().list();
        SharedIndexInformer<T> fresh = newInformer();
        fresh.initialState(known.stream());
        // The fresh one is current before the old one stops: an old one still listing ends its start with "stopped
        // before starting" inside stop(), which is this relist, not an informer that stopped by itself.
        informer = fresh;
        old.stop();
        run(fresh);
        logger.atDebug().setMessage("Informer replaced to relist now").addKeyValue("kind", kind)
                .addKeyValue("known", known.size()).log();
    }

    /** A new informer whose cache keeps keys and resource versions only. */
    private SharedIndexInformer<T> newInformer() {
        SharedIndexInformer<T> fresh = informers.get();
        fresh.itemStore(new KeyOnlyItemStore<>(blank));
        fresh.removeNamespaceIndex();
        return fresh;
    }

    private void run(SharedIndexInformer<T> next) {
        next.addEventHandler(new Delivery(next));
        next.exceptionHandler((started, failure) -> {
            // An Error (OutOfMemoryError above all) is not an outage to retry: the process ends (FatalErrors).
            endIfError(failure);
            logger.atDebug().setMessage("Listing/watching failed, retrying with backoff").addKeyValue("kind", kind)
                    .addKeyValue("err", failure).log();
            monitor.informerFailed(kind, failure);
            return true;
        });
        informer = next;
        next.start().whenComplete((ignored, failure) -> {
            endIfError(failure);
            if (failure != null) {
                if (closed || informer != next) {
                    logger.atDebug().setMessage("Informer stopped before its list completed").addKeyValue("kind", kind)
                            .log();
                } else {
                    logger.atError().setMessage("Informer stopped").addKeyValue("kind", kind)
                            .addKeyValue("err", failure).log();
                }
            } else if (informer == next) {
                initialList.listed(next.getStore().listKeys());
            }
        });
    }

    boolean isSynced() {
        return initialList.isDone();
    }

    /**
     * Ends the process through {@link FatalErrors} when {@code failure} is, or was caused by, an {@link Error}: the
     * client catches everything its list and watch threads throw and hands it here as a failure to retry.
     */
    static void endIfError(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof Error error) {
                FatalErrors.process().fatal(Thread.currentThread(), error);
                return;
            }
        }
    }

    /** Hands one informer's notifications to the handler while that informer is the current one. */
    private final class Delivery implements ResourceEventHandler<T> {
        private final SharedIndexInformer<T> source;

        Delivery(SharedIndexInformer<T> source) {
            this.source = source;
        }

        @Override
        public void onAdd(T obj) {
            deliver(source, null, obj);
        }

        @Override
        public void onUpdate(T oldObj, T newObj) {
            if (oldObj == newObj) {
                // An informer resync: both are the cache's shell, and nothing changed.
                initialList.delivered(key(newObj));
                return;
            }
            deliver(source, oldObj, newObj);
        }

        @Override
        public void onDelete(T obj, boolean deletedFinalStateUnknown) {
            if (deletedFinalStateUnknown) {
                logger.atDebug().setMessage("Deleted while the watch was down (last known state used)")
                        .addKeyValue("kind", kind).addKeyValue("object", key(obj)).log();
            }
            deliver(source, obj, null);
        }
    }

    private void deliver(SharedIndexInformer<T> source, T previous, T current) {
        if (source != informer) {
            return; // a replaced informer's late notification; its successor reports the same state
        }
        try {
            // previous may be a shell of the cache (a relist's delete): the value delivered last stands for it.
            String key = key(current != null ? current : previous);
            V prev = delivered.get(key);
            V cur = current == null ? null : mapper.apply(current).orElse(null);
            if (cur == null) {
                delivered.remove(key);
            } else {
                delivered.put(key, cur);
            }
            if ((prev != null || cur != null) && !Objects.equals(prev, cur)) {
                handler.accept(prev, cur);
            }
        } catch (Error e) {
            FatalErrors.process().fatal(Thread.currentThread(), e);
            throw e;
        } catch (RuntimeException e) {
            logger.atError().setMessage("Handling a change failed").addKeyValue("kind", kind)
                    .addKeyValue("object", key(current != null ? current : previous)).setCause(e).log();
        } finally {
            initialList.delivered(key(current != null ? current : previous));
        }
    }

    /** The informer store's key: "namespace/name", or "name" for a cluster-scoped object. */
    static String key(HasMetadata obj) {
        if (obj == null || obj.getMetadata() == null) {
            return "";
        }
        String namespace = obj.getMetadata().getNamespace();
        return namespace == null || namespace.isEmpty() ? obj.getMetadata().getName()
                : namespace + "/" + obj.getMetadata().getName();
    }

    private void safely(Runnable r, String what) {
        try {
            r.run();
        } catch (RuntimeException e) {
            logger.atError().setMessage("Callback failed").addKeyValue("kind", kind).addKeyValue("callback", what)
                    .setCause(e).log();
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        handler = (previous, current) -> { };
        onSynced = () -> { };
        delivered.clear();
        if (informer != null) {
            informer.close();
        }
    }
}
