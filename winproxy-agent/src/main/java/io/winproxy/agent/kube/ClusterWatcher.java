package io.winproxy.agent.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
 * into "everything deleted".
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

    /** Uses mappers that log their warnings. */
    public ClusterWatcher(KubernetesClient client, WatchOptions options, ClusterEventHandler handler) {
        this(client, options, handler, new ServiceMapper(), new EndpointSliceMapper(), new NodeMapper());
    }

    public ClusterWatcher(KubernetesClient client, WatchOptions options, ClusterEventHandler handler,
                          ServiceMapper serviceMapper, EndpointSliceMapper sliceMapper, NodeMapper nodeMapper) {
        this.options = options;
        long resync = options.resyncPeriod().toMillis();
        String selector = options.labelSelector();
        SharedIndexInformer<Service> serviceInformer = client.services().inAnyNamespace()
                .withLabelSelector(selector).runnableInformer(resync);
        SharedIndexInformer<EndpointSlice> sliceInformer = client.discovery().v1().endpointSlices().inAnyNamespace()
                .withLabelSelector(selector).runnableInformer(resync);
        SharedIndexInformer<Node> nodeInformer = client.nodes().withField("metadata.name", options.nodeName())
                .runnableInformer(resync);
        this.services = new MappedInformer<>("Services", serviceInformer, serviceMapper::map, handler::onService,
                () -> {
                    handler.onServicesSynced();
                    synced.countDown();
                });
        this.endpointSlices = new MappedInformer<>("EndpointSlices", sliceInformer, sliceMapper::map,
                handler::onEndpointSlice, () -> {
                    handler.onEndpointSlicesSynced();
                    synced.countDown();
                });
        this.node = new MappedInformer<>("Node " + options.nodeName(), nodeInformer, nodeMapper::map,
                handler::onNode, handler::onNodeSynced);
    }

    /** Starts the informers in the background and returns at once; an unreachable API server is retried. */
    public void start() {
        logger.info("Watching Services and EndpointSlices with label selector \"{}\" and Node {} (resync {})",
                options.labelSelector(), options.nodeName(), options.resyncPeriod());
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
        for (MappedInformer<?, ?> informer : List.of(services, endpointSlices, node)) {
            try {
                informer.close();
            } catch (RuntimeException e) {
                logger.debug("Stopping an informer failed", e);
            }
        }
    }
}
