package io.winproxy.agent.config;

import io.winproxy.agent.logging.LoggingOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The agent's effective, validated configuration, built once by {@link ConfigResolver#resolve} from the
 * kube-proxy flags, the optional {@code KubeProxyConfiguration} file and the environment. Immutable.
 *
 * @param mode                        always {@code kernelspace} (blank is defaulted, anything else is rejected)
 * @param hostnameOverride            the node name: {@code --hostname-override} / {@code hostnameOverride}
 *                                    trimmed and lower-cased, else the machine's host name lower-cased
 * @param configuredHostnameOverride  the override as configured, "" when none (what --write-config-to writes)
 * @param networkName                 the HNS network: {@code --network-name} / {@code winkernel.networkName},
 *                                    else env {@code KUBE_NETWORK}; "" when neither is set
 * @param configuredNetworkName       the network name as configured, "" when none
 * @param sourceVip                   {@code --source-vip} / {@code winkernel.sourceVip}, "" when none
 * @param enableDsr                   {@code --enable-dsr} / {@code winkernel.enableDSR} (the {@code WinDSR} gate
 *                                    rule is checked by the dsr module)
 * @param rootHnsEndpointName         {@code --root-hnsendpoint-name}, default {@code cbr0}
 * @param forwardHealthCheckVip       {@code --forward-healthcheck-vip}
 * @param featureGates                the feature gates
 * @param clusterCidrs                {@code --cluster-cidr} / {@code clusterCIDR}: none, one, or a dual-stack pair
 * @param clientConnection            API server connection settings
 * @param master                      {@code --master}, "" when none; applied even with {@code --config}
 * @param bindAddress                 the node's primary IP override ({@code 0.0.0.0} = detect)
 * @param bindAddressHardFail         fail when a server cannot bind
 * @param healthzBindAddress          {@code ip:port} of the health server, "" when disabled
 * @param metricsBindAddress          {@code ip:port} of the metrics server, "" when disabled
 * @param syncPeriod                  the longest interval between syncs (v1alpha1 {@code iptables.syncPeriod})
 * @param minSyncPeriod               the shortest interval between syncs ({@code iptables.minSyncPeriod})
 * @param configSyncPeriod            the informer resync period
 * @param nodePortAddresses           CIDRs of node addresses for NodePorts, or {@code ["primary"]}; empty = all
 * @param enableProfiling             profiling handlers on the metrics server
 * @param showHiddenMetricsForVersion "" or {@code major.minor}
 * @param serviceProxyName            handle only Services labelled
 *                                    {@code service.kubernetes.io/service-proxy-name=<this>}; "" = unlabelled ones
 * @param portRange                   accepted and validated, unused (as upstream)
 * @param windowsService              run as a Windows service ({@code --windows-service} /
 *                                    {@code windowsRunAsService})
 * @param windowsPriorityClass        {@code --windows-priorityclass}, "" when not given
 * @param logging                     logging options
 * @param linux                       Linux-only settings: accepted, written back, no effect
 * @param cleanup                     {@code --cleanup}: remove what winproxy owns and exit
 * @param configFile                  {@code --config}
 * @param writeConfigTo               {@code --write-config-to}: the caller writes this config there and exits 0
 * @param warnings                    one-line warnings found while resolving (ignored or Linux-only flags,
 *                                    lenient decoding, GA gates); the caller logs them once logging is set up
 */
public record ProxyConfig(
        String mode,
        String hostnameOverride,
        String configuredHostnameOverride,
        String networkName,
        String configuredNetworkName,
        String sourceVip,
        boolean enableDsr,
        String rootHnsEndpointName,
        boolean forwardHealthCheckVip,
        FeatureGates featureGates,
        List<String> clusterCidrs,
        ClientConnection clientConnection,
        String master,
        String bindAddress,
        boolean bindAddressHardFail,
        String healthzBindAddress,
        String metricsBindAddress,
        Duration syncPeriod,
        Duration minSyncPeriod,
        Duration configSyncPeriod,
        List<String> nodePortAddresses,
        boolean enableProfiling,
        String showHiddenMetricsForVersion,
        String serviceProxyName,
        String portRange,
        boolean windowsService,
        String windowsPriorityClass,
        LoggingOptions logging,
        LinuxSettings linux,
        boolean cleanup,
        Optional<Path> configFile,
        Optional<Path> writeConfigTo,
        List<String> warnings) {

    /** The only proxy mode on Windows. */
    public static final String MODE_KERNELSPACE = "kernelspace";

    public ProxyConfig {
        clusterCidrs = List.copyOf(clusterCidrs);
        nodePortAddresses = List.copyOf(nodePortAddresses);
        warnings = List.copyOf(warnings);
    }

    /** The kubeconfig path, "" for in-cluster configuration (or {@link #master()} alone). */
    public String kubeconfig() {
        return clientConnection.kubeconfig();
    }

    public boolean healthzEnabled() {
        return !healthzBindAddress.isEmpty();
    }

    public boolean metricsEnabled() {
        return !metricsBindAddress.isEmpty();
    }

    /** The health server's port; winkernel also uses it for health-check load balancers. Empty when disabled. */
    public OptionalInt healthzPort() {
        return port(healthzBindAddress);
    }

    public OptionalInt metricsPort() {
        return port(metricsBindAddress);
    }

    /** kube-proxy's health timeout on Windows: twice {@link #syncPeriod()}. */
    public Duration healthTimeout() {
        return syncPeriod.multipliedBy(2);
    }

    /**
     * The HNS network name, failing as upstream winkernel does when neither {@code --network-name} nor
     * {@code KUBE_NETWORK} is set.
     */
    public String requireNetworkName() throws ConfigException {
        if (networkName.isEmpty()) {
            throw new ConfigException("Environment variable KUBE_NETWORK and network-flag not initialized"
                    + " (set --network-name or KUBE_NETWORK)");
        }
        return networkName;
    }

    /** The same configuration with other warnings (e.g. none, to compare two configurations). */
    public ProxyConfig withWarnings(List<String> newWarnings) {
        return new ProxyConfig(mode, hostnameOverride, configuredHostnameOverride, networkName,
                configuredNetworkName, sourceVip, enableDsr, rootHnsEndpointName, forwardHealthCheckVip, featureGates,
                clusterCidrs, clientConnection, master, bindAddress, bindAddressHardFail, healthzBindAddress,
                metricsBindAddress, syncPeriod, minSyncPeriod, configSyncPeriod, nodePortAddresses, enableProfiling,
                showHiddenMetricsForVersion, serviceProxyName, portRange, windowsService, windowsPriorityClass,
                logging, linux, cleanup, configFile, writeConfigTo, newWarnings);
    }

    private static OptionalInt port(String hostPort) {
        return FlagValues.splitHostPort(hostPort)
                .map(hp -> OptionalInt.of(Integer.parseInt(hp[1])))
                .orElse(OptionalInt.empty());
    }
}
