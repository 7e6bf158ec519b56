package io.winproxy.hns.emulator;

/**
 * The capacity limits of an emulated host, as {@code winproxy check} and tests read them: the most destinations
 * (backend endpoints) one load balancer may have, and the node's dynamic port pool from which every non-DSR load
 * balancer reserves a range of {@value #PORTS_PER_LOAD_BALANCER} ports.
 *
 * <p>The destination limit of a profile (docs/emulator.md gives the evidence): {@link EchoProfile#WS2019} 64, the
 * limit reported for Windows Server 2019, where a create or modify with more fails with {@code E_INVALIDARG}
 * "invalid number of destinations" (kubernetes/kubernetes#98680, microsoft/Windows-Containers#93); later releases
 * 1024, the largest number public documentation gives (Amazon EKS: one Service on Windows nodes supports up to 1024
 * backend pods). A fault setting ({@code hns fault set --max-destinations N}) overrides it.
 *
 * <p>The port pool is unlimited unless a fault setting ({@code hns fault set --port-pool PORTS}) gives its size: its
 * real size is the node's TCP dynamic port range (16,384 ports by default, that is 256 non-DSR load balancers, but
 * commonly widened), which HNS does not report. When it runs out, a create fails with
 * {@code HCN_E_PORT_ALREADY_EXISTS} (the code HNS gives when the TCP/IP stack refuses its port reservation,
 * microsoft/hcsshim#1043).
 *
 * @param maxDestinationsPerLoadBalancer the destination limit in effect
 * @param dynamicPorts        the pool's size in ports; 0: unlimited
 * @param dynamicPortsInUse   the ports the host's non-DSR load balancers reserve
 */
public record HnsLimits(int maxDestinationsPerLoadBalancer, int dynamicPorts, int dynamicPortsInUse) {
    /** The ports one non-DSR load balancer reserves from the dynamic pool (kubernetes/website#17930). */
    public static final int PORTS_PER_LOAD_BALANCER = 64;
    /** The destination limit of Windows Server 2019. */
    public static final int WS2019_MAX_DESTINATIONS = 64;
    /** The destination limit of later releases (the largest documented). */
    public static final int LATER_MAX_DESTINATIONS = 1024;

    /** The destination limit of a profile; {@link EchoProfile#VERBATIM} has that of the emulated version's. */
    public static int maxDestinations(EchoProfile profile) {
        return profile == EchoProfile.WS2019 ? WS2019_MAX_DESTINATIONS : LATER_MAX_DESTINATIONS;
    }

    /** Whether the pool has a size (else it never runs out). */
    public boolean portPoolLimited() {
        return dynamicPorts > 0;
    }

    /** How many more non-DSR load balancers the pool can take; {@link Integer#MAX_VALUE} when unlimited. */
    public int loadBalancerHeadroom() {
        return portPoolLimited() ? Math.max(0, (dynamicPorts - dynamicPortsInUse) / PORTS_PER_LOAD_BALANCER)
                : Integer.MAX_VALUE;
    }
}
