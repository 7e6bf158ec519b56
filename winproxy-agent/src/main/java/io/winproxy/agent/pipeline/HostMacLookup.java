package io.winproxy.agent.pipeline;

import io.winproxy.agent.sync.HostMac;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;

/**
 * The port through which the pipeline learns the MAC of the host interface that holds the node IP (upstream
 * winkernel's host-MAC lookup). On overlay the MAC goes into the source-VIP endpoint and the ClusterIP remote
 * endpoints. It is chosen together with the HNS: the node's interfaces for the real HNS, {@link #emulated()} for the
 * emulated host, whose node IPs are on no local interface.
 */
@FunctionalInterface
public interface HostMacLookup {
    /** Knows no MAC: overlay ClusterIP endpoints are then not planned (as upstream without a host MAC). */
    HostMacLookup NONE = ip -> "";

    /** The MAC as {@code aa-bb-cc-dd-ee-ff}, or "" when the IP is empty or on no interface of this host. */
    String macOf(String ip);

    /** The interfaces of this machine ({@link HostMac#of}). */
    static HostMacLookup system() {
        return HostMac::of;
    }

    /**
     * The emulated host's NIC: a stable, locally administered Hyper-V-style MAC derived from the node IP
     * ({@code 00-15-5d-} and the IP's last three bytes), so that the emulated overlay plans and programs what a node
     * does.
     */
    static HostMacLookup emulated() {
        return ip -> {
            if (ip == null || ip.isEmpty()) {
                return "";
            }
            byte[] bytes;
            try {
                bytes = InetAddress.getByName(ip).getAddress();
            } catch (UnknownHostException e) {
                return "";
            }
            int n = bytes.length;
            return String.format(Locale.ROOT, "00-15-5d-%02x-%02x-%02x", bytes[n - 3] & 0xff, bytes[n - 2] & 0xff,
                    bytes[n - 1] & 0xff);
        };
    }
}
