package io.winproxy.hns.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Display names of HCN numeric enums and bitmasks (hcn-api.md section 2, winkernel-semantics.md section 2.4). */
public final class HcnNames {
    private static final String[] LB_FLAGS = {"DSR", "IPv6"};
    private static final String[] PORT_MAPPING_FLAGS = {"ILB", "LocalRoutedVIP", "UseMux", "PreserveDIP",
        "VipExternalIP"};
    private static final String[] ENDPOINT_FLAGS = {"RemoteEndpoint", "DisableICC", "EnableMirroring",
        "EnableLowInterfaceMetric", "OverrideDNSServerOrder", "EnableDhcp"};
    private static final String[] DISTRIBUTIONS = {"None", "SourceIPProtocol", "SourceIP"};

    private HcnNames() {
    }

    /** {@code TCP}, {@code UDP}, ... or the number when unknown. */
    public static String protocol(int protocol) {
        return switch (protocol) {
            case 0 -> "Unknown";
            case 1 -> "ICMPv4";
            case 2 -> "IGMP";
            case 6 -> "TCP";
            case 17 -> "UDP";
            case 58 -> "ICMPv6";
            case 132 -> "SCTP";
            default -> Integer.toString(protocol);
        };
    }

    /** The protocol number of a name ({@code "tcp"} -> 6) or of a decimal string; -1 when neither. */
    public static int protocolNumber(String name) {
        if (name == null) {
            return -1;
        }
        String t = name.trim().toUpperCase(Locale.ROOT);
        return switch (t) {
            case "TCP" -> 6;
            case "UDP" -> 17;
            case "SCTP" -> 132;
            case "ICMPV4", "ICMP" -> 1;
            case "ICMPV6" -> 58;
            default -> t.matches("[0-9]+") ? Integer.parseInt(t) : -1;
        };
    }

    public static String distributionType(int type) {
        return type >= 0 && type < DISTRIBUTIONS.length ? DISTRIBUTIONS[type] : Integer.toString(type);
    }

    /** Load-balancer flags as {@code DSR|IPv6}; empty string for none. */
    public static String loadBalancerFlags(int flags) {
        return join(bits(flags, LB_FLAGS));
    }

    /** Port-mapping flags as {@code ILB|LocalRoutedVIP}; empty string for none. */
    public static String portMappingFlags(int flags) {
        return join(bits(flags, PORT_MAPPING_FLAGS));
    }

    /** Endpoint flags as {@code RemoteEndpoint}; empty string for none. */
    public static String endpointFlags(int flags) {
        return join(bits(flags, ENDPOINT_FLAGS));
    }

    public static List<String> loadBalancerFlagList(int flags) {
        return bits(flags, LB_FLAGS);
    }

    public static List<String> portMappingFlagList(int flags) {
        return bits(flags, PORT_MAPPING_FLAGS);
    }

    public static List<String> endpointFlagList(int flags) {
        return bits(flags, ENDPOINT_FLAGS);
    }

    /** Names of the set bits, low bit first; an unknown bit appears as its hex value. */
    private static List<String> bits(int flags, String[] names) {
        List<String> out = new ArrayList<>();
        for (int bit = 0; bit < 32; bit++) {
            int mask = 1 << bit;
            if ((flags & mask) != 0) {
                out.add(bit < names.length ? names[bit] : String.format(Locale.ROOT, "0x%X", mask));
            }
        }
        return out;
    }

    private static String join(List<String> names) {
        return String.join("|", names);
    }
}
