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
        return bytes.isEmpty() ? FALLBACK : conjure(bytes.get());
    }

    /** {@link #conjure(String)} of a parsed IP (4 or 16 bytes). */
    static String conjure(byte[] b) {
        char[] mac = {'0', '2', '-', '1', '1', '-', 0, 0, '-', 0, 0, '-', 0, 0, '-', 0, 0};
        for (int k = 0; k < 4; k++) {
            int i = b.length == 4 ? k : 15 - k;
            mac[6 + 3 * k] = HEX[(b[i] >> 4) & 0xf];
            mac[7 + 3 * k] = HEX[b[i] & 0xf];
        }
        return new String(mac);
    }
}
