package io.winproxy.agent.config;

import java.time.Duration;
import java.util.List;

/**
 * Settings of kube-proxy's Linux proxy modes (iptables, ipvs, nftables, conntrack, OOM score, local-traffic
 * detection). winproxy accepts and validates them as kube-proxy does, and writes them back with
 * {@code --write-config-to}, but they have no effect on Windows.
 */
public record LinuxSettings(
        boolean masqueradeAll,
        int masqueradeBit,
        boolean localhostNodePorts,
        int oomScoreAdj,
        String detectLocalMode,
        String bridgeInterface,
        String interfaceNamePrefix,
        Conntrack conntrack,
        Ipvs ipvs,
        Nftables nftables) {

    /** The {@code conntrack} block; null values mean "leave the kernel's value". */
    public record Conntrack(Integer maxPerCore, Integer min, Duration tcpEstablishedTimeout,
                            Duration tcpCloseWaitTimeout, boolean tcpBeLiberal, Duration udpTimeout,
                            Duration udpStreamTimeout) {
    }

    /** The {@code ipvs} block. */
    public record Ipvs(Duration syncPeriod, Duration minSyncPeriod, String scheduler, List<String> excludeCidrs,
                       boolean strictArp, Duration tcpTimeout, Duration tcpFinTimeout, Duration udpTimeout) {
        public Ipvs {
            excludeCidrs = List.copyOf(excludeCidrs);
        }
    }

    /** The {@code nftables} block. */
    public record Nftables(Duration syncPeriod, Duration minSyncPeriod, int masqueradeBit, boolean masqueradeAll) {
    }
}
