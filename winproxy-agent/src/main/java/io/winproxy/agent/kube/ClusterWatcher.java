package io.winproxy.agent.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches what kube-proxy watches (kube-proxy-common §5.1): Services and {@code discovery.k8s.io/v1} EndpointSlices
 * in all namespaces with {@link WatchOptions#labelSelector()}, and this Node by {@code metadata.name}. Changes
 * reach the {@link ClusterEventHandler} as plain values on fabric8's informer threads (one serial stream per kind).
 * {@code onServicesSynced()} / {@code onEndpointSlicesSynced()} / {@code onNodeSynced()} run once each, after that
 * kind's initial list has been delivered. An update that maps to an equal value (an informer resync, a change to a
 * field the proxy does not read) is not delivered.
 *
 * <p>Survives the API server going away (list and watch are retried with backoff for ever) and a mixed-version
 * control plane answering 503 or 404: the cached state is kept until a list succeeds, so a failure never turns
 * into "everything deleted". An outage is logged in a handful of lines by an {@link ApiServerMonitor}, which
 * relists at once when the API server answers again.
 *
 * <p>Lifecycle: construct, {@link #start()}, {@link #close()}. Not restartable.
 */
public final class ClusterWatcher implements AutoCloseable {
    private static final Logger logger = LoggerFactory.getLogger(ClusterWatcher.class);

    private final WatchOptions options;
    private final MappedInformer<Service, ?> services;
    private final MappedInformer<EndpointSlice, ?> endpointSlices;
    private final MappedInformer<Node, ?> node;
    private final CountDownLatch synced = new CountDownLatch(2);
    private final ApiServerMonitor monitor;
    private final ApiTraffic traffic;
    /** The probe of each kind during an outage: one object, from the API server's watch cache. */
    /** Objects per page of an informer's list (client-go's reflector uses 500). */
    static final long LIST_PAGE = 500;
    private static final ListOptions PROBE = new ListOptionsBuilder().withLimit(1L).withResourceVersion("0").build();

    /** Uses mappers that log their warnings; API outages are seen from the informers' failures only. */
    public ClusterWatcher(KubernetesClient client, WatchOptions options, ClusterEventHandler handler) {
        this(client, options, handler, null);
    }

    /**
     * Uses mappers that log their warnings.
     *
     * @param traffic the request outcomes of {@code client} (see {@link KubeClientFactory#create(KubeClientSettings,
     *                ApiRequestListener)}), so that an outage of the watches is noticed too; null when unknown
     */
    public ClusterWatcher(KubernetesClient client, WatchOptions options, ClusterEventHandler handler,
                          ApiTraffic traffic) {
        this(client, options, handler, new ServiceMapper(MappingWarnings.log()),
                new EndpointSliceMapper(MappingWarnings.log()), new NodeMapper(MappingWarnings.log()), traffic);
    }

    public ClusterWatcher(KubernetesClient client, WatchOptions options, ClusterEventHandler handler,
                          ServiceMapper serviceMapper, EndpointSliceMapper sliceMapper, NodeMapper nodeMapper) {
        this(client, options, handler, serviceMapper, sliceMapper, nodeMapper, null);
    }

    private ClusterWatcher(KubernetesClient client, WatchOptions options, ClusterEventHandler handler,
                           ServiceMapper serviceMapper, EndpointSliceMapper sliceMapper, NodeMapper nodeMapper,
                           ApiTraffic traffic) {
        this.options = options;
        this.traffic = traffic;
        this.monitor = new ApiServerMonitor(KubeClientFactory.redact(client.getMasterUrl().toString()));
        long resync = options.resyncPeriod().toMillis();
        String selector = options.labelSelector();
        var serviceQuery = client.services().inAnyNamespace().withLabelSelector(selector);
        var sliceQuery = client.discovery().v1().endpointSlices().inAnyNamespace().withLabelSelector(selector);
        // Lists come in pages of LIST_PAGE objects, as client-go's reflector lists: the whole list of a large cluster
        // is never in memory at once as fabric8 objects (10,000 slices would be over 100 MB).
        var nodeQuery = client.nodes().withField("metadata.name", options.nodeName());
        this.services = paged("Services", serviceQuery, resync, Service::new, serviceMapper, handler::onService,
                handler::onServicesSynced);
        this.endpointSlices = paged("EndpointSlices", sliceQuery, resync, EndpointSlice::new, sliceMapper,
                handler::onEndpointSlice, handler::onEndpointSlicesSynced);
        this.node = new MappedInformer<>("Node " + options.nodeName(), () -> nodeQuery.runnableInformer(resync), Node::new,
                () -> nodeQuery.list(PROBE), nodeMapper::map, handler::onNode, handler::onNodeSynced, monitor);
        for (MappedInformer<?, ?> informer : List.of(services, endpointSlices, node)) {
            monitor.register(informer);
        }
    }

    /**
     * The informer of a kind of which every object {@code query} selects is watched, listed in pages of
     * {@link #LIST_PAGE}; {@code onSynced} runs once its initial list is delivered, and counts towards
     * {@link #awaitSynced}.
     */
    private <T extends HasMetadata, V> MappedInformer<T, V> paged(String kind, FilterWatchListDeletable<T, ?, ?> query,
                                                                  long resync, Supplier<T> blank,
                                                                  KubeObjectMapper<T, V> mapper,
                                                                  BiConsumer<V, V> handler, Runnable onSynced) {
        return new MappedInformer<>(kind, () -> query.withLimit(LIST_PAGE).runnableInformer(resync), blank,
                () -> query.list(PROBE), mapper::map, handler, () -> {
                    onSynced.run();
                    synced.countDown();
                }, monitor);
    }

    /** Starts the informers in the background and returns at once; an unreachable API server is retried. */
    public void start() {
        logger.atInfo().setMessage("Watching Services, EndpointSlices and this Node")
                .addKeyValue("labelSelector", options.labelSelector()).addKeyValue("node", options.nodeName())
                .addKeyValue("resyncPeriod", options.resyncPeriod()).log();
        if (traffic != null) {
            traffic.add(monitor);
        }
        monitor.start();
        services.start();
        endpointSlices.start();
        node.start();
    }

    /** Waits until the initial lists of Services and EndpointSlices have both been delivered. */
    public boolean awaitSynced(Duration timeout) throws InterruptedException {
        return synced.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Both initial lists (Services, EndpointSlices) have been delivered. */
    public boolean isSynced() {
        return synced.getCount() == 0;
    }

    /** Stops the informers; no callback starts after this returns (one in progress may finish). */
    @Override
    public void close() {
        if (traffic != null) {
            traffic.remove(monitor);
        }
        monitor.close();
        for (MappedInformer<?, ?> informer : List.of(services, endpointSlices, node)) {
            try {
                informer.close();
            } catch (RuntimeException e) {
                logger.atDebug().setMessage("Stopping an informer failed").setCause(e).log();
            }
        }
    }
}
