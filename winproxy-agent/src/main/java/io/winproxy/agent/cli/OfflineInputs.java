package io.winproxy.agent.cli;

import io.winproxy.agent.config.ConfigException;
import io.winproxy.agent.config.ConfigResolver;
import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.agent.config.ProxyFlags;
import picocli.CommandLine.Mixin;

/**
 * The inputs {@code plan} and {@code trace} share, as one picocli mixin: the proxy's flags (and {@code --config}),
 * the host options ({@link HnsHostOptions}) and where the cluster is read ({@link ClusterSourceOptions}).
 */
public final class OfflineInputs {
    @Mixin
    ProxyFlags flags = new ProxyFlags();

    @Mixin
    HnsHostOptions host = new HnsHostOptions();

    @Mixin
    ClusterSourceOptions cluster = new ClusterSourceOptions();

    /** The proxy configuration of these inputs (flags, {@code --config}, environment), nothing else evaluated. */
    public ProxyConfig config(CliContext context) throws ConfigException {
        return ConfigResolver.resolve(flags, context.env());
    }

    /** True when the cluster comes from files ({@code --manifests}, {@code --example-cluster}). */
    public boolean offlineCluster() {
        return cluster.offline();
    }

    /** The read-only model of these inputs ({@link OfflineModel#compute}). */
    public OfflineModel compute(CliContext context) throws ConfigException {
        return OfflineModel.compute(context, flags, host, cluster);
    }
}
