package io.winproxy.agent.kube;

import java.time.Duration;
import java.util.Map;

/**
 * What {@link ClusterWatcher} watches.
 *
 * @param nodeName         this node's name (hostname override or OS hostname, already lowercased); its Node object
 *                         is watched by field selector {@code metadata.name}
 * @param serviceProxyName {@code serviceProxyName}: when non-blank, only Services and EndpointSlices labelled
 *                         {@code service.kubernetes.io/service-proxy-name=<value>} are handled; otherwise only those
 *                         without that label
 * @param resyncPeriod     {@code configSyncPeriod} (default 15m); informers redeliver their cache this often
 */
public record WatchOptions(String nodeName, String serviceProxyName, Duration resyncPeriod) {
    /** The label naming an alternative service proxy. */
    public static final String SERVICE_PROXY_NAME_LABEL = "service.kubernetes.io/service-proxy-name";
    /** The label the EndpointSlice controller puts on slices of headless Services. */
    public static final String HEADLESS_LABEL = "service.kubernetes.io/headless";

    public WatchOptions {
        if (nodeName == null || nodeName.isBlank()) {
            throw new IllegalArgumentException("nodeName must not be blank");
        }
        if (resyncPeriod == null || resyncPeriod.isNegative()) {
            throw new IllegalArgumentException("resyncPeriod must be zero or positive: " + resyncPeriod);
        }
    }

    /** kube-proxy's defaults: no service proxy name, 15 minute resync. */
    public static WatchOptions forNode(String nodeName) {
        return new WatchOptions(nodeName, null, Duration.ofMinutes(15));
    }

    /** The label selector applied to Services and EndpointSlices (kube-proxy's {@code ProxyServer.Run}). */
    public String labelSelector() {
        String proxyName = serviceProxyName == null || serviceProxyName.isBlank()
                ? "!" + SERVICE_PROXY_NAME_LABEL
                : SERVICE_PROXY_NAME_LABEL + "=" + serviceProxyName.trim();
        return proxyName + ",!" + HEADLESS_LABEL;
    }

    /**
     * Whether an object with these labels passes {@link #labelSelector()}: the same filter applied in memory, for
     * objects that do not come from the API server (e.g. {@code plan --manifests}).
     */
    public boolean selects(Map<String, String> labels) {
        Map<String, String> l = labels == null ? Map.of() : labels;
        if (l.containsKey(HEADLESS_LABEL)) {
            return false;
        }
        if (serviceProxyName == null || serviceProxyName.isBlank()) {
            return !l.containsKey(SERVICE_PROXY_NAME_LABEL);
        }
        return serviceProxyName.trim().equals(l.get(SERVICE_PROXY_NAME_LABEL));
    }
}
