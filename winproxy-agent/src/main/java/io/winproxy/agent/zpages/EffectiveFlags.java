package io.winproxy.agent.zpages;

import io.winproxy.agent.config.GoDuration;
import io.winproxy.agent.config.ProxyConfig;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The values {@code /flagz} shows: kube-proxy's flags (names without dashes, as pflag reports them) with the value
 * each has in the effective configuration, written as pflag writes them (Go durations, {@code true}/{@code false},
 * lists as {@code [a,b]}). Covers the flags that act on Windows.
 */
final class EffectiveFlags {
    private EffectiveFlags() {
    }

    static Map<String, String> of(ProxyConfig c) {
        Map<String, String> f = new TreeMap<>();
        f.put("bind-address", c.bindAddress());
        f.put("bind-address-hard-fail", bool(c.bindAddressHardFail()));
        f.put("cleanup", bool(c.cleanup()));
        f.put("cluster-cidr", String.join(",", c.clusterCidrs()));
        f.put("config", c.configFile().map(Object::toString).orElse(""));
        f.put("config-sync-period", GoDuration.format(c.configSyncPeriod()));
        f.put("enable-dsr", bool(c.enableDsr()));
        f.put("feature-gates", c.featureGates().toFlagValue());
        f.put("forward-healthcheck-vip", bool(c.forwardHealthCheckVip()));
        f.put("healthz-bind-address", c.healthzBindAddress());
        f.put("hostname-override", c.configuredHostnameOverride());
        f.put("iptables-min-sync-period", GoDuration.format(c.minSyncPeriod()));
        f.put("iptables-sync-period", GoDuration.format(c.syncPeriod()));
        f.put("kube-api-burst", Integer.toString(c.clientConnection().burst()));
        f.put("kube-api-content-type", c.clientConnection().contentType());
        f.put("kube-api-qps", number(c.clientConnection().qps()));
        f.put("kubeconfig", c.clientConnection().kubeconfig());
        f.put("logging-format", c.logging().format());
        f.put("master", c.master());
        f.put("metrics-bind-address", c.metricsBindAddress());
        f.put("network-name", c.configuredNetworkName());
        f.put("nodeport-addresses", list(c.nodePortAddresses()));
        f.put("profiling", bool(c.enableProfiling()));
        f.put("proxy-mode", c.mode());
        f.put("root-hnsendpoint-name", c.rootHnsEndpointName());
        f.put("show-hidden-metrics-for-version", c.showHiddenMetricsForVersion());
        f.put("source-vip", c.sourceVip());
        f.put("v", Integer.toString(c.logging().verbosity()));
        f.put("vmodule", c.logging().vmodule());
        f.put("windows-priorityclass", c.windowsPriorityClass());
        f.put("windows-service", bool(c.windowsService()));
        f.replaceAll((k, v) -> v == null ? "" : v);
        return f;
    }

    private static String bool(boolean b) {
        return b ? "true" : "false";
    }

    private static String list(List<String> values) {
        return "[" + String.join(",", values) + "]";
    }

    /** Go's %v of a float32: no fraction when whole. */
    private static String number(float f) {
        return f == Math.rint(f) ? Long.toString((long) f) : String.format(Locale.ROOT, "%s", f);
    }
}
