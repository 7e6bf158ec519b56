package io.winproxy.agent.health;

import io.winproxy.agent.kube.EventRecorder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-proxy's per-service health-check servers for LoadBalancer services with {@code externalTrafficPolicy:
 * Local}: one HTTP listener per {@code healthCheckNodePort}, answering 200 on any path and method when the service
 * has local ready endpoints and the proxier is healthy, 503 otherwise (kube-proxy-common.md §2). All listeners share one {@link ConnectionPool}.
 *
 * <p>Both sync methods are called by the sync thread at the end of every sync, {@link #syncServices} first. A port
 * that cannot be bound gets a Warning event {@code FailedToStartServiceHealthcheck} on the Service and is retried on
 * the next {@link #syncServices}. Thread-safe; each connection is served on its own daemon thread within {@link ServerLimits#DEFAULT}.
 */
public final class ServiceHealthServer implements AutoCloseable {

    public static final String FAILED_TO_START_REASON = "FailedToStartServiceHealthcheck";

    private static final Logger logger = LoggerFactory.getLogger(ServiceHealthServer.class);

    private final String nodeName;
    private final List<String> bindIps;
    private final BooleanSupplier proxyHealthy;
    private final EventRecorder events;
    private final Map<String, Instance> instances = new HashMap<>();
    private final ConnectionPool workers = new ConnectionPool("service healthcheck", ServerLimits.DEFAULT);

    /**
     * @param nodeName     this node, named in the Warning event
     * @param bindIps      the IPs to listen on, one listener per IP and port; empty means the dual-stack wildcard,
     *                     which is what upstream winkernel does ({@code nodePortAddresses} unset)
     * @param proxyHealthy the proxier health, e.g. {@code proxyHealthServer::isProxyHealthy}
     * @throws IllegalArgumentException when an entry of {@code bindIps} is not an IP literal
     */
    public ServiceHealthServer(String nodeName, List<String> bindIps, BooleanSupplier proxyHealthy,
                               EventRecorder events) {
        this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
        for (String ip : bindIps) {
            if (!BindAddress.isIpLiteral(ip)) {
                throw new IllegalArgumentException("service health check bind IP: must be a valid IP, got \"" + ip
                        + "\"");
            }
        }
        this.bindIps = List.copyOf(bindIps);
        this.proxyHealthy = Objects.requireNonNull(proxyHealthy, "proxyHealthy");
        this.events = Objects.requireNonNull(events, "events");
    }

    /**
     * Makes the listeners follow the services: closes those whose service is gone or whose port changed, opens the
     * new ones, keeps the rest (with their endpoint count).
     *
     * @param healthCheckNodePorts {@code "namespace/name"} to {@code healthCheckNodePort}; null means none
     */
    public synchronized void syncServices(Map<String, Integer> healthCheckNodePorts) {
        Map<String, Integer> wanted = healthCheckNodePorts == null ? Map.of() : healthCheckNodePorts;
        for (Iterator<Map.Entry<String, Instance>> it = instances.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Instance> entry = it.next();
            Integer port = wanted.get(entry.getKey());
            if (port == null || port != entry.getValue().port) {
                logger.atInfo().setMessage("Closing healthcheck").addKeyValue("service", entry.getKey())
                        .addKeyValue("port", entry.getValue().port).log();
                entry.getValue().close();
                it.remove();
            }
        }
        for (Map.Entry<String, Integer> entry : new TreeMap<>(wanted).entrySet()) {
            if (!instances.containsKey(entry.getKey())) {
                open(entry.getKey(), entry.getValue());
            }
        }
    }

    /**
     * Sets each service's count of local ready endpoints; services missing from the map get 0 and entries for
     * services without a listener are ignored.
     *
     * @param localReadyEndpoints {@code "namespace/name"} to the number of distinct local, ready endpoint IPs
     */
    public synchronized void syncEndpoints(Map<String, Integer> localReadyEndpoints) {
        Map<String, Integer> counts = localReadyEndpoints == null ? Map.of() : localReadyEndpoints;
        for (Map.Entry<String, Integer> entry : counts.entrySet()) {
            if (!instances.containsKey(entry.getKey())) {
                logger.atDebug().setMessage("Not saving endpoints for unknown healthcheck")
                        .addKeyValue("service", entry.getKey()).log();
            }
        }
        instances.forEach((service, instance) -> instance.endpoints = counts.getOrDefault(service, 0));
    }

    /** The open listeners: {@code "namespace/name"} to port. */
    public synchronized Map<String, Integer> services() {
        Map<String, Integer> ports = new TreeMap<>();
        instances.forEach((service, instance) -> ports.put(service, instance.port));
        return Collections.unmodifiableMap(ports);
    }

    /** The bound socket addresses of every listener, for diagnostics and tests. */
    public synchronized List<InetSocketAddress> listenAddresses() {
        List<InetSocketAddress> addresses = new ArrayList<>();
        instances.values().forEach(instance -> instance.servers.forEach(s -> addresses.add(s.address())));
        return addresses;
    }

    @Override
    public synchronized void close() {
        instances.values().forEach(Instance::close);
        instances.clear();
        workers.close();
    }

    private void open(String service, int port) {
        Instance instance = new Instance(service, port);
        List<BindAddress> addresses = bindIps.isEmpty()
                ? List.of(new BindAddress("0.0.0.0", port))
                : bindIps.stream().map(ip -> new BindAddress(ip, port)).toList();
        for (BindAddress address : addresses) {
            try {
                instance.servers.add(HttpListener.open(address.socketAddress(), "service healthcheck",
                        instance::handle, workers));
            } catch (IOException | RuntimeException e) {
                instance.close();
                String message = "node " + nodeName + " failed to start healthcheck \"" + service + "\" on port "
                        + port + ": " + e.getMessage();
                logger.atError().setMessage("Failed to start healthcheck").addKeyValue("node", nodeName)
                        .addKeyValue("service", service).addKeyValue("port", port).setCause(e).log();
                int slash = service.indexOf('/');
                events.event("Service", slash < 0 ? "" : service.substring(0, slash), service.substring(slash + 1),
                        "Warning", FAILED_TO_START_REASON, message);
                return;
            }
        }
        logger.atInfo().setMessage("Opened healthcheck").addKeyValue("service", service).addKeyValue("port", port)
                .log();
        instances.put(service, instance);
    }

    /** One service's listeners and its current count; the count is written by the sync thread. */
    private final class Instance {
        final String service;
        final int port;
        final List<HttpListener> servers = new ArrayList<>();
        volatile int endpoints;

        Instance(String service, int port) {
            this.service = service;
            this.port = port;
        }

        HttpResponse handle(HttpRequest request) {
            int count = endpoints;
            boolean healthy = proxyHealthy.getAsBoolean();
            int slash = service.indexOf('/');
            String body = HealthJson.serviceHealth(slash < 0 ? "" : service.substring(0, slash),
                    service.substring(slash + 1), count, healthy);
            return HttpResponses.of(count != 0 && healthy ? 200 : 503, HttpResponses.JSON, body,
                    Map.of("X-Load-Balancing-Endpoint-Weight", Integer.toString(count)));
        }

        void close() {
            for (HttpListener server : servers) {
                server.close();
            }
            servers.clear();
        }
    }
}
