package io.winproxy.agent.cli;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.Locale;

/** Finds the MAC of the interface that holds an IP (upstream winkernel's host-MAC lookup for overlay). */
final class HostMac {
    private HostMac() {
    }

    /** The MAC as {@code aa-bb-cc-dd-ee-ff}, or "" when the IP is empty or on no local interface. */
    static String of(String ip) {
        if (ip == null || ip.isEmpty()) {
            return "";
        }
        try {
            InetAddress address = InetAddress.getByName(ip);
            NetworkInterface nic = NetworkInterface.getByInetAddress(address);
            if (nic == null || nic.getHardwareAddress() == null) {
                return "";
            }
            StringBuilder mac = new StringBuilder();
            for (byte b : nic.getHardwareAddress()) {
                if (mac.length() > 0) {
                    mac.append('-');
                }
                mac.append(String.format(Locale.ROOT, "%02x", b));
            }
            return mac.toString();
        } catch (UnknownHostException | SocketException e) {
            return "";
        }
    }
}
