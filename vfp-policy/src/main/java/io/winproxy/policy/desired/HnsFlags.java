package io.winproxy.policy.desired;

import java.util.ArrayList;
import java.util.List;

/** HNS flag values and their names, for {@code plan -o json}, logs and the tracer. */
public final class HnsFlags {
    public static final int LB_DSR = 1;
    public static final int LB_IPV6 = 2;
    public static final int PM_ILB = 1;
    public static final int PM_LOCAL_ROUTED_VIP = 2;
    public static final int PM_USE_MUX = 4;
    public static final int PM_PRESERVE_DIP = 8;
    public static final int PM_VIP_EXTERNAL_IP = 16;
    /** Every load-balancer flag bit winproxy writes or understands; HNS may report others (ignored). */
    public static final int LB_KNOWN = LB_DSR | LB_IPV6;
    /** Every port-mapping flag bit winproxy writes or understands. */
    public static final int PM_KNOWN = PM_ILB | PM_LOCAL_ROUTED_VIP | PM_USE_MUX | PM_PRESERVE_DIP | PM_VIP_EXTERNAL_IP;
    public static final int DISTRIBUTION_NONE = 0;
    public static final int DISTRIBUTION_SOURCE_IP_PROTOCOL = 1;
    public static final int DISTRIBUTION_SOURCE_IP = 2;

    private static final String[] LB_NAMES = {"DSR", "IPv6"};
    private static final String[] PM_NAMES = {"ILB", "LocalRoutedVIP", "UseMux", "PreserveDIP", "VipExternalIP"};

    private HnsFlags() {
    }

    /** "DSR|IPv6", "None" for 0; unknown bits as "0x.." . */
    public static String lbFlagNames(int flags) {
        return names(flags, LB_NAMES);
    }

    /** "LocalRoutedVIP|VipExternalIP" for 18, "None" for 0. */
    public static String portMappingFlagNames(int flags) {
        return names(flags, PM_NAMES);
    }

    /** "None", "SourceIPProtocol", "SourceIP" or the number. */
    public static String distributionTypeName(int type) {
        return switch (type) {
            case DISTRIBUTION_NONE -> "None";
            case DISTRIBUTION_SOURCE_IP_PROTOCOL -> "SourceIPProtocol";
            case DISTRIBUTION_SOURCE_IP -> "SourceIP";
            default -> Integer.toString(type);
        };
    }

    private static String names(int flags, String[] names) {
        if (flags == 0) {
            return "None";
        }
        List<String> out = new ArrayList<>();
        int rest = flags;
        for (int bit = 0; bit < names.length; bit++) {
            if ((flags & (1 << bit)) != 0) {
                out.add(names[bit]);
                rest &= ~(1 << bit);
            }
        }
        if (rest != 0) {
            out.add("0x" + Integer.toHexString(rest));
        }
        return String.join("|", out);
    }
}
