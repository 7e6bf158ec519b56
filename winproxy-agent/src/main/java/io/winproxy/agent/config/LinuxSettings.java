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

    /** The Linux settings of a resolved draft. */
    static LinuxSettings from(ConfigDraft d) {
        return new LinuxSettings(
                d.bool("iptables.masqueradeAll"),
                d.integer("iptables.masqueradeBit"),
                d.bool("iptables.localhostNodePorts"),
                d.integer("oomScoreAdj"),
                d.string("detectLocalMode"),
                d.string("detectLocal.bridgeInterface"),
                d.string("detectLocal.interfaceNamePrefix"),
                new LinuxSettings.Conntrack(d.integer("conntrack.maxPerCore"), d.integer("conntrack.min"),
                        d.duration("conntrack.tcpEstablishedTimeout"), d.duration("conntrack.tcpCloseWaitTimeout"),
                        d.bool("conntrack.tcpBeLiberal"), d.duration("conntrack.udpTimeout"),
                        d.duration("conntrack.udpStreamTimeout")),
                new LinuxSettings.Ipvs(d.duration("ipvs.syncPeriod"), d.duration("ipvs.minSyncPeriod"),
                        d.string("ipvs.scheduler"), d.list("ipvs.excludeCIDRs"), d.bool("ipvs.strictARP"),
                        d.duration("ipvs.tcpTimeout"), d.duration("ipvs.tcpFinTimeout"),
                        d.duration("ipvs.udpTimeout")),
                new LinuxSettings.Nftables(d.duration("nftables.syncPeriod"), d.duration("nftables.minSyncPeriod"),
                        d.integer("nftables.masqueradeBit"), d.bool("nftables.masqueradeAll")));
    }
}
