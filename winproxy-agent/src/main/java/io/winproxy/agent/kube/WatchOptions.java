package io.winproxy.agent.kube;

import java.time.Duration;

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
}
