package io.winproxy.agent.kube;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.winproxy.agent.DaemonThreads;
import io.winproxy.agent.logging.KlogRefs;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes core/v1 Events as kube-proxy's recorder does: source component {@code kube-proxy} on this host,
 * reportingController {@code kube-proxy}, involvedObject with kind, namespace, name and (for Services, looked up
 * when the Event is created) the uid; a Node's events go to namespace {@code default} with the node name as uid, as upstream does.
 *
 * <p>{@link #event} never blocks: events are queued (bounded; overflow is dropped and counted) and written by one
 * background thread. An event identical (object, type, reason, message) to one written in the last
 * {@link #AGGREGATION_WINDOW} updates that Event's {@code count} and {@code lastTimestamp} instead of creating a new
 * one. As client-go's spam filter, each involved object may produce {@link #SPAM_BURST} events at once and then one
 * every {@link #SPAM_REFILL}; the excess is dropped and counted. API failures are logged at debug level and the
 * event is dropped: events are best-effort.
 */
public final class KubeEventRecorder implements EventRecorder, AutoCloseable {
    private static final Logger logger = LoggerFactory.getLogger(KubeEventRecorder.class);

    public static final String COMPONENT = "kube-proxy";
    static final Duration AGGREGATION_WINDOW = Duration.ofMinutes(10);
    static final int DEFAULT_QUEUE_CAPACITY = 1000;
    static final int SPAM_BURST = 25;
    static final Duration SPAM_REFILL = Duration.ofMinutes(5);
    private static final int CACHE_SIZE = 4096;
    private static final int MAX_MESSAGE_LENGTH = 1024;

    private final KubernetesClient client;
    private final String host;
    private final Clock clock;
    private final ThreadPoolExecutor worker;
    private final AtomicLong dropped = new AtomicLong();
    /** Guarded by the worker thread (single writer). */
    private final Map<String, Aggregate> recent = lru();
    private final Map<String, TokenBucket> perObject = lru();
    private long lastNameNanos;

    /** @param host this node's name, the event's {@code source.host} */
    public KubeEventRecorder(KubernetesClient client, String host) {
        this(client, host, Clock.systemUTC(), DEFAULT_QUEUE_CAPACITY);
    }

    KubeEventRecorder(KubernetesClient client, String host, Clock clock, int queueCapacity) {
        this.client = client;
        this.host = host;
        this.clock = clock;
        this.worker = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(queueCapacity), DaemonThreads.named("event-recorder"), (r, executor) -> {
                    throw new RejectedExecutionException("event queue full");
                });
    }

    @Override
    public void event(String kind, String namespace, String name, String type, String reason, String message) {
        try {
            worker.execute(() -> write(kind, namespace == null ? "" : namespace, name, type, reason, message));
        } catch (RejectedExecutionException e) {
            long n = dropped.incrementAndGet();
            if (n == 1 || n % 100 == 0) {
                logger.atWarn().setMessage("Dropped events (queue full or recorder closed)").addKeyValue("count", n)
                        .addKeyValue("reason", reason).addKeyValue(KlogRefs.key(kind), KlogRefs.ref(namespace, name))
                        .log();
            }
        }
    }

    /** How many events were dropped: queue full, recorder closed, or too many for one object. */
    public long droppedEvents() {
        return dropped.get();
    }

    /** Waits until everything queued before this call has been written (or dropped). */
    public boolean flush(Duration timeout) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        try {
            worker.execute(done::countDown);
        } catch (RejectedExecutionException e) {
            return false;
        }
        return done.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Writes what is queued (for up to 2 seconds), then stops. Later events are dropped. */
    @Override
    public void close() {
        worker.shutdown();
        try {
            if (!worker.awaitTermination(2, TimeUnit.SECONDS)) {
                worker.shutdownNow();
            }
        } catch (InterruptedException e) {
            worker.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    private void write(String kind, String namespace, String name, String type, String reason, String message) {
        String text = message == null ? "" : message.length() > MAX_MESSAGE_LENGTH
                ? message.substring(0, MAX_MESSAGE_LENGTH - 3) + "..." : message;
        String key = String.join("\u0000", kind, namespace, name, type, reason, text);
        Instant now = clock.instant();
        String objectKey = String.join("\u0000", kind, namespace, name);
        if (!perObject.computeIfAbsent(objectKey, k -> new TokenBucket(1d / SPAM_REFILL.toSeconds(), SPAM_BURST,
                () -> clock.millis() * 1_000_000L)).tryAcquire()) {
            dropped.incrementAndGet();
            logger.atDebug().setMessage("Dropped an event: too many events for this object")
                    .addKeyValue("reason", reason).addKeyValue(KlogRefs.key(kind), KlogRefs.ref(namespace, name)).log();
            return;
        }
        try {
            Aggregate previous = recent.get(key);
            if (previous != null && Duration.between(previous.lastSeen, now).compareTo(AGGREGATION_WINDOW) < 0
                    && bump(previous, now)) {
                return;
            }
            Event created = create(kind, namespace, name, type, reason, text, now);
            recent.put(key, new Aggregate(created.getMetadata().getNamespace(), created.getMetadata().getName(),
                    now));
        } catch (RuntimeException e) {
            // KubernetesClientException for API errors, IllegalStateException once the client is closed
            logger.atDebug().setMessage("Could not write an event").addKeyValue("reason", reason)
                    .addKeyValue(KlogRefs.key(kind), KlogRefs.ref(namespace, name)).setCause(e).log();
        }
    }

    /** Increments the count of an existing Event; false when it is gone (then a new one is created). */
    private boolean bump(Aggregate aggregate, Instant now) {
        String timestamp = now.toString();
        Event edited;
        try {
            edited = client.v1().events().inNamespace(aggregate.namespace).withName(aggregate.name).edit(e -> {
                e.setCount(e.getCount() == null ? 2 : e.getCount() + 1);
                e.setLastTimestamp(timestamp);
                return e;
            });
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) {
                return false;
            }
            throw e;
        }
        aggregate.lastSeen = now;
        return edited != null;
    }

    private Event create(String kind, String namespace, String name, String type, String reason, String message,
                         Instant now) {
        boolean clusterScoped = namespace.isEmpty();
        String eventNamespace = clusterScoped ? "default" : namespace;
        ObjectReference involved = new ObjectReferenceBuilder()
                .withApiVersion("v1")
                .withKind(kind)
                .withNamespace(clusterScoped ? null : namespace)
                .withName(name)
                .withUid(uid(kind, namespace, name))
                .build();
        String timestamp = now.toString();
        Event event = new EventBuilder()
                .withNewMetadata()
                .withNamespace(eventNamespace)
                .withName(name + "." + Long.toHexString(uniqueNanos(now)))
                .endMetadata()
                .withInvolvedObject(involved)
                .withType(type)
                .withReason(reason)
                .withMessage(message)
                .withNewSource(COMPONENT, host)
                .withReportingComponent(COMPONENT)
                .withReportingInstance(host)
                .withAction("Starting".equals(reason) && "Node".equals(kind) ? "StartKubeProxy" : null)
                .withFirstTimestamp(timestamp)
                .withLastTimestamp(timestamp)
                .withCount(1)
                .build();
        return client.v1().events().inNamespace(eventNamespace).resource(event).create();
    }

    /**
     * The event's name suffix, as client-go's: the time in nanoseconds, in hex. Strictly increasing, so that two
     * events within the clock's resolution do not collide.
     */
    private long uniqueNanos(Instant now) {
        long nanos = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        lastNameNanos = Math.max(nanos, lastNameNanos + 1);
        return lastNameNanos;
    }

    /** kube-proxy uses the node name as the Node reference's uid; a Service's uid is looked up. */
    private String uid(String kind, String namespace, String name) {
        if ("Node".equals(kind)) {
            return name;
        }
        if (!"Service".equals(kind)) {
            return null;
        }
        try {
            Service service = client.services().inNamespace(namespace).withName(name).get();
            return service == null ? null : service.getMetadata().getUid();
        } catch (KubernetesClientException e) {
            logger.atDebug().setMessage("Could not look up the Service for its uid")
                    .addKeyValue("service", KlogRefs.ref(namespace, name)).addKeyValue("err", e.getMessage()).log();
            return null;
        }
    }

    private static <K, V> Map<K, V> lru() {
        return new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
                return size() > CACHE_SIZE;
            }
        };
    }

    private static final class Aggregate {
        final String namespace;
        final String name;
        Instant lastSeen;

        Aggregate(String namespace, String name, Instant lastSeen) {
            this.namespace = namespace;
            this.name = name;
            this.lastSeen = lastSeen;
        }
    }
}
