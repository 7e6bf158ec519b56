package io.winproxy.policy.desired;

import io.winproxy.policy.desired.DesiredAssembler.Port;
import io.winproxy.policy.net.OpenHashMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * The remote-endpoint side of a {@link DesiredAssembler}. Per IP it knows the ports that make its overlay ClusterIP
 * endpoint and the ports that list it as a backend (each in assembly order), and how many winning load balancers use
 * it. From these it decides which port provides the IP's desired remote endpoint: the first ClusterIP-endpoint port,
 * else, while a winning load balancer uses the IP, the first listing port. Not thread-safe.
 */
final class RemoteEndpointIndex {
    private static final Port[] NO_PORTS = new Port[0];

    /** Who needs, lists and provides the remote endpoint of one IP. */
    private static final class IpRefs {
        Port[] clusterIpPorts = NO_PORTS;
        Port[] listers = NO_PORTS;
        int references;
        Port provider;
        DesiredRemoteEndpoint provided;
    }

    private final Map<String, IpRefs> ips = new OpenHashMap<>();
    private final PersistentMap.Editor<String, DesiredRemoteEndpoint> byIp =
            PersistentMap.<String, DesiredRemoteEndpoint>empty().editor();
    private final Consumer<Port> providerChanged;
    /** True until the first {@link #decide()}, which decides every IP, so none is marked dirty. */
    private boolean fresh = true;
    private Set<String> dirty = new HashSet<>();

    /** @param providerChanged told about each port that starts or stops providing an IP's endpoint */
    RemoteEndpointIndex(Consumer<Port> providerChanged) {
        this.providerChanged = providerChanged;
    }

    /** Adds the ClusterIP endpoints and backend endpoints of a port's result. */
    void enter(Port port, ServicePortPolicy.Result result) {
        change(port, result, RemoteEndpointIndex::insert);
    }

    /** Removes what {@link #enter} added for the same result. */
    void retract(Port port, ServicePortPolicy.Result result) {
        change(port, result, RemoteEndpointIndex::without);
    }

    /**
     * Applies {@code edit} ({@link #insert} or {@link #without}) with {@code port} to the ClusterIP-port list of each
     * ClusterIP endpoint's IP and to the lister list of each backend endpoint's IP in {@code result}.
     */
    private void change(Port port, ServicePortPolicy.Result result, BiFunction<Port[], Port, Port[]> edit) {
        for (DesiredRemoteEndpoint ep : result.clusterIpEndpoints()) {
            IpRefs refs = refs(ep.ip());
            refs.clusterIpPorts = edit.apply(refs.clusterIpPorts, port);
        }
        for (DesiredRemoteEndpoint ep : result.remoteEndpoints()) {
            IpRefs refs = refs(ep.ip());
            refs.listers = edit.apply(refs.listers, port);
        }
    }

    /** Counts ({@code delta} 1) or uncounts (-1) the backends of a winning load balancer. */
    void reference(List<String> backends, int delta) {
        for (String ip : backends) {
            refs(ip).references += delta;
        }
    }

    /** The entry of an IP, created when missing; the IP is re-decided by the next {@link #decide()}. */
    private IpRefs refs(String ip) {
        if (!fresh) {
            dirty.add(ip);
        }
        return ips.computeIfAbsent(ip, k -> new IpRefs());
    }

    /**
     * Decides the provider of every IP changed since the last call (of all IPs the first time).
     *
     * @return the IPs whose desired remote endpoint appeared, went away or differs; empty the first time
     */
    Set<String> decide() {
        Set<String> changed = new HashSet<>();
        if (fresh) {
            List<String> keys = new ArrayList<>(ips.size());
            List<DesiredRemoteEndpoint> values = new ArrayList<>(ips.size());
            ips.forEach((ip, refs) -> { // every entry is in use: nothing is removed
                if (provide(ip, refs)) {
                    keys.add(ip);
                    values.add(refs.provided);
                }
            });
            byIp.putAll(keys, values);
            fresh = false;
            return changed;
        }
        for (String ip : dirty) {
            if (decide(ip, ips.get(ip))) {
                changed.add(ip);
            }
        }
        dirty = new HashSet<>(); // not clear(): that costs the set's largest capacity
        return changed;
    }

    /** Decides the provider of an IP; returns true when the IP's remote endpoint changed. */
    private boolean decide(String ip, IpRefs refs) {
        Port before = refs.provider;
        if (!provide(ip, refs)) {
            return false;
        }
        if (before != null) {
            providerChanged.accept(before);
        }
        if (refs.provider != null) {
            providerChanged.accept(refs.provider);
        }
        DesiredRemoteEndpoint provided = refs.provided;
        DesiredRemoteEndpoint was = provided == null ? byIp.remove(ip) : byIp.put(ip, provided);
        return !Objects.equals(was, provided);
    }

    /** Sets the provider of an IP; true when it (or the endpoint instance it provides) changed. */
    private boolean provide(String ip, IpRefs refs) {
        Port provider = null;
        DesiredRemoteEndpoint provided = null;
        if (refs.clusterIpPorts.length > 0) {
            provider = refs.clusterIpPorts[0];
            provided = find(provider.result.clusterIpEndpoints(), ip);
        } else if (refs.references > 0 && refs.listers.length > 0) {
            provider = refs.listers[0];
            provided = find(provider.result.remoteEndpoints(), ip);
        }
        if (refs.clusterIpPorts.length == 0 && refs.listers.length == 0 && refs.references == 0) {
            ips.remove(ip);
        }
        if (provider == refs.provider && provided == refs.provided) {
            return false;
        }
        refs.provider = provider;
        refs.provided = provided;
        return true;
    }

    /** True when {@code port} provides {@code ep} (this very instance of its result). */
    boolean provides(Port port, DesiredRemoteEndpoint ep) {
        IpRefs refs = ips.get(ep.ip());
        return refs != null && refs.provider == port && refs.provided == ep;
    }

    /** The desired remote endpoints by IP, as decided. */
    PersistentMap<String, DesiredRemoteEndpoint> snapshot() {
        return byIp.snapshot();
    }

    private static DesiredRemoteEndpoint find(List<DesiredRemoteEndpoint> endpoints, String ip) {
        for (int i = 0; i < endpoints.size(); i++) {
            if (endpoints.get(i).ip().equals(ip)) {
                return endpoints.get(i);
            }
        }
        throw new IllegalStateException("no remote endpoint " + ip + " in " + endpoints);
    }

    private static Port[] insert(Port[] ports, Port port) {
        if (ports.length == 0) {
            return port.alone;
        }
        int at = ports.length;
        while (at > 0 && PortOrder.PORT_ORDER.compare(ports[at - 1], port) > 0) {
            at--;
        }
        Port[] out = Arrays.copyOf(ports, ports.length + 1);
        System.arraycopy(ports, at, out, at + 1, ports.length - at);
        out[at] = port;
        return out;
    }

    private static Port[] without(Port[] ports, Port port) {
        for (int i = 0; i < ports.length; i++) {
            if (ports[i] == port) {
                if (ports.length == 1) {
                    return NO_PORTS;
                }
                Port[] out = new Port[ports.length - 1];
                System.arraycopy(ports, 0, out, 0, i);
                System.arraycopy(ports, i + 1, out, i, ports.length - i - 1);
                return out;
            }
        }
        return ports;
    }
}
