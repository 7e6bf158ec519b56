package io.winproxy.agent.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.winproxy.agent.DaemonThreads;
import io.winproxy.agent.kube.EndpointSliceMapper;
import io.winproxy.agent.kube.KubeObjectMapper;
import io.winproxy.agent.kube.NodeMapper;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.NodeInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The host side of {@code demo --api-only}: keeps an emulated host (in a state file shared with a proxy in another
 * process) equal to the cluster, as the CNI on a real node would: the network from the Nodes and one local endpoint
 * per pod of this node named by the EndpointSlices. Reads the embedded API server's objects on every
 * {@link #syncOnce()}; writes the host only when the Nodes or the local pod IPs changed since the last write.
 */
final class EmulatedHostFollower implements AutoCloseable {
    private static final Logger logger = LoggerFactory.getLogger(EmulatedHostFollower.class);

    private final KubernetesClient client;
    private final EmulatedHost host;
    private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(
            DaemonThreads.named("emulated-cni"));
    private List<NodeInfo> lastNodes;
    private Set<String> lastPodIps;

    EmulatedHostFollower(KubernetesClient client, EmulatedHost host) {
        this.client = client;
        this.host = host;
    }

    /** The Nodes of the cluster that map cleanly (a Node that does not is skipped, as the agent skips it). */
    static List<NodeInfo> nodes(KubernetesClient client) {
        List<NodeInfo> nodes = new ArrayList<>();
        NodeMapper mapper = new NodeMapper(KubeObjectMapper.loggedWarnings());
        client.nodes().list().getItems().forEach(n -> mapper.map(n).ifPresent(nodes::add));
        return nodes;
    }

    /**
     * Reads Nodes and EndpointSlices once and brings the emulated host in line.
     *
     * @return true when the host was written
     */
    synchronized boolean syncOnce() {
        List<NodeInfo> nodes = nodes(client);
        List<EndpointSliceInfo> slices = new ArrayList<>();
        EndpointSliceMapper mapper = new EndpointSliceMapper(KubeObjectMapper.loggedWarnings());
        client.discovery().v1().endpointSlices().inAnyNamespace().list().getItems()
                .forEach(s -> mapper.map(s).ifPresent(slices::add));
        Set<String> podIps = EmulatedCluster.localPodIps(slices, host.thisNode());
        boolean changed = false;
        if (!Objects.equals(nodes, lastNodes)) {
            EmulatedCluster.syncNetwork(host, nodes);
            lastNodes = nodes;
            changed = true;
        }
        if (!Objects.equals(podIps, lastPodIps)) {
            host.syncLocalEndpoints(podIps);
            lastPodIps = podIps;
            logger.atInfo().setMessage("Emulated CNI updated the local endpoints").addKeyValue("count", podIps.size())
                    .addKeyValue("node", host.thisNode()).addKeyValue("IPs", podIps).log();
            changed = true;
        }
        return changed;
    }

    /** Repeats {@link #syncOnce()} every {@code interval} until closed; a failed round is logged and retried. */
    void follow(Duration interval) {
        executor.scheduleWithFixedDelay(() -> {
            try {
                syncOnce();
            } catch (RuntimeException e) {
                logger.atWarn().setMessage("Emulated CNI could not update the host").addKeyValue("err", e.getMessage())
                        .log();
            }
        }, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
