package io.winproxy.agent.dataplane;

import io.winproxy.agent.metrics.AgentMetrics;
import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsCapabilities;
import io.winproxy.hns.HnsClient;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.NativeCallListener;
import io.winproxy.hns.NetworkSession;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.HostComputeNetwork;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * An {@link HnsClient} decorator that reports every call's operation, HRESULT and latency to {@link AgentMetrics}
 * ({@code winproxy_hns_calls_total}, {@code winproxy_hns_call_duration_seconds}). Thread-safe if the delegate is.
 */
public final class MeteredHnsClient implements HnsClient {
    private final HnsClient delegate;
    private final AgentMetrics metrics;
    private final LongSupplier nanoTime;

    public MeteredHnsClient(HnsClient delegate, AgentMetrics metrics, LongSupplier nanoTime) {
        this.delegate = delegate;
        this.metrics = metrics;
        this.nanoTime = nanoTime;
    }

    private <T> T call(String operation, Supplier<T> body) {
        long start = nanoTime.getAsLong();
        int hresult = HResults.S_OK;
        try {
            return body.get();
        } catch (HnsException e) {
            hresult = e.hresult();
            throw e;
        } finally {
            metrics.hnsCall(operation, hresult, Duration.ofNanos(nanoTime.getAsLong() - start));
        }
    }

    private void run(String operation, Runnable body) {
        call(operation, () -> {
            body.run();
            return null;
        });
    }

    @Override
    public HnsCapabilities capabilities() {
        return delegate.capabilities();
    }

    @Override
    public List<HostComputeNetwork> listNetworks() {
        return call("ListNetworks", delegate::listNetworks);
    }

    @Override
    public Optional<HostComputeNetwork> getNetworkByName(String name) {
        return call("GetNetworkByName", () -> delegate.getNetworkByName(name));
    }

    @Override
    public Optional<HostComputeNetwork> getNetworkById(String id) {
        return call("GetNetworkById", () -> delegate.getNetworkById(id));
    }

    @Override
    public List<HostComputeEndpoint> listEndpoints(String networkId) {
        return call("ListEndpoints", () -> delegate.listEndpoints(networkId));
    }

    @Override
    public List<String> listEndpointIds(String networkId) {
        return call("HcnEnumerateEndpoints", () -> delegate.listEndpointIds(networkId));
    }

    @Override
    public NetworkSession openNetwork(String networkId) {
        NetworkSession session = call("HcnOpenNetwork", () -> delegate.openNetwork(networkId));
        return new NetworkSession() {
            @Override
            public String networkId() {
                return session.networkId();
            }

            @Override
            public HostComputeEndpoint createEndpoint(HostComputeEndpoint settings) {
                return call("HcnCreateEndpoint", () -> session.createEndpoint(settings));
            }

            @Override
            public void close() {
                session.close();
            }
        };
    }

    @Override
    public void setNativeCallListener(NativeCallListener listener) {
        delegate.setNativeCallListener(listener);
    }

    @Override
    public Optional<HostComputeEndpoint> getEndpoint(String id) {
        return call("GetEndpoint", () -> delegate.getEndpoint(id));
    }

    @Override
    public HostComputeEndpoint createEndpoint(String networkId, HostComputeEndpoint settings) {
        return call("HcnCreateEndpoint", () -> delegate.createEndpoint(networkId, settings));
    }

    @Override
    public void deleteEndpoint(String id) {
        run("HcnDeleteEndpoint", () -> delegate.deleteEndpoint(id));
    }

    @Override
    public List<String> listLoadBalancerIds() {
        return call("HcnEnumerateLoadBalancers", delegate::listLoadBalancerIds);
    }

    @Override
    public List<HostComputeLoadBalancer> listLoadBalancers() {
        return call("ListLoadBalancers", delegate::listLoadBalancers);
    }

    @Override
    public Optional<HostComputeLoadBalancer> getLoadBalancer(String id) {
        return call("GetLoadBalancer", () -> delegate.getLoadBalancer(id));
    }

    @Override
    public HostComputeLoadBalancer createLoadBalancer(HostComputeLoadBalancer settings) {
        return call("HcnCreateLoadBalancer", () -> delegate.createLoadBalancer(settings));
    }

    @Override
    public HostComputeLoadBalancer modifyLoadBalancer(String id, HostComputeLoadBalancer settings) {
        return call("HcnModifyLoadBalancer", () -> delegate.modifyLoadBalancer(id, settings));
    }

    @Override
    public void deleteLoadBalancer(String id) {
        run("HcnDeleteLoadBalancer", () -> delegate.deleteLoadBalancer(id));
    }
}
