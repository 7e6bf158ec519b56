package io.winproxy.agent.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One fabric8 informer whose objects are mapped to plain values before they reach a handler. Add, update and delete
 * (tombstones resolved) become {@code (previous, current)} pairs; updates that map to equal values (resyncs,
 * status-only changes the proxy does not read) are dropped. Exceptions from the mapper or the handler are logged,
 * never thrown into fabric8. List and watch failures are retried for ever with fabric8's backoff; a failed list
 * never produces deletions, because the cache is only replaced by a successful list.
 *
 * @param <T> the fabric8 type
 * @param <V> the plain value type
 */
final class MappedInformer<T extends HasMetadata, V> implements ResourceEventHandler<T>, AutoCloseable {
    private static final Logger logger = LoggerFactory.getLogger(MappedInformer.class);
    private static final Duration FAILURE_LOG_INTERVAL = Duration.ofSeconds(30);

    private final String kind;
    private final SharedIndexInformer<T> informer;
    private final Function<T, Optional<V>> mapper;
    private final BiConsumer<V, V> handler;
    private final InitialListTracker initialList;
    private final Object failureLogLock = new Object();
    private volatile boolean closed;
    private Instant lastFailureLog = Instant.EPOCH;
    private long failuresSinceLog;

    /**
     * @param informer not yet started; this registers itself as its only handler
     * @param onSynced runs once, after the initial list has been delivered to {@code handler}
     */
    MappedInformer(String kind, SharedIndexInformer<T> informer, Function<T, Optional<V>> mapper,
                   BiConsumer<V, V> handler, Runnable onSynced) {
        this.kind = kind;
        this.informer = informer;
        this.mapper = mapper;
        this.handler = handler;
        this.initialList = new InitialListTracker(() -> {
            logger.info("Initial list of {} delivered", kind);
            safely(onSynced, "synced callback");
        });
        informer.addEventHandler(this);
        informer.exceptionHandler(this::retryAfterException);
    }

    /** Starts list and watch in the background; returns at once. */
    void start() {
        informer.start().whenComplete((ignored, failure) -> {
            if (failure != null) {
                if (closed) {
                    logger.debug("{} informer closed before its initial list completed", kind);
                } else {
                    logger.error("{} informer stopped: {}", kind, failure.toString());
                }
            } else {
                initialList.listed(informer.getStore().listKeys());
            }
        });
    }

    boolean isSynced() {
        return initialList.isDone();
    }

    @Override
    public void onAdd(T obj) {
        deliver(null, obj);
    }

    @Override
    public void onUpdate(T oldObj, T newObj) {
        deliver(oldObj, newObj);
    }

    @Override
    public void onDelete(T obj, boolean deletedFinalStateUnknown) {
        if (deletedFinalStateUnknown) {
            logger.debug("{} {} deleted while the watch was down (last known state used)", kind, key(obj));
        }
        deliver(obj, null);
    }

    private void deliver(T previous, T current) {
        try {
            V prev = previous == null ? null : mapper.apply(previous).orElse(null);
            V cur = current == null ? null : mapper.apply(current).orElse(null);
            if ((prev != null || cur != null) && !Objects.equals(prev, cur)) {
                handler.accept(prev, cur);
            }
        } catch (RuntimeException e) {
            logger.error("Handling a {} change for {} failed", kind, key(current != null ? current : previous), e);
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

    /** fabric8 asks whether to keep going after a list or watch failure: always, logging at most every 30 s. */
    private boolean retryAfterException(boolean started, Throwable t) {
        synchronized (failureLogLock) {
            failuresSinceLog++;
            Instant now = Instant.now();
            if (Duration.between(lastFailureLog, now).compareTo(FAILURE_LOG_INTERVAL) >= 0) {
                logger.warn("Listing/watching {} failed ({} failures since last report), retrying with backoff: {}",
                        kind, failuresSinceLog, oneLine(t));
                lastFailureLog = now;
                failuresSinceLog = 0;
            }
        }
        return true;
    }

    private static String oneLine(Throwable t) {
        String message = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }

    private void safely(Runnable r, String what) {
        try {
            r.run();
        } catch (RuntimeException e) {
            logger.error("{} {} failed", kind, what, e);
        }
    }

    @Override
    public void close() {
        closed = true;
        informer.close();
    }
}
