package io.winproxy.policy.desired;

import io.winproxy.policy.net.IpAddresses;
import java.util.Optional;

/** Conjured MAC addresses for remote endpoints (never on the wire), as winkernel's {@code conjureMac("02-11", ip)}. */
public final class MacAddresses {
    /** The fallback when the IP cannot be parsed. */
    public static final String FALLBACK = "02-11-22-33-44-55";
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private MacAddresses() {
    }

    /**
     * "02-11-aa-bb-cc-dd" from the four IPv4 octets (lower-case hex); for IPv6 the last four bytes in reverse order
     * (bytes 15, 14, 13, 12).
     */
    public static String conjure(String ip) {
        Optional<byte[]> bytes = IpAddresses.parse(ip);
        if (bytes.isEmpty()) {
            return FALLBACK;
        }
        byte[] b = bytes.get();
        int[] pick = b.length == 4 ? new int[] {0, 1, 2, 3} : new int[] {15, 14, 13, 12};
        StringBuilder sb = new StringBuilder(17).append("02-11");
        for (int i : pick) {
            sb.append('-').append(HEX[(b[i] >> 4) & 0xf]).append(HEX[b[i] & 0xf]);
        }
        return sb.toString();
    }
}
