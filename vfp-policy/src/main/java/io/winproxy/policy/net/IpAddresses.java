package io.winproxy.policy.net;

import io.winproxy.policy.model.IpFamily;
import java.util.Optional;

/**
 * Pure parsing and formatting of textual IP addresses (no DNS, no {@code InetAddress}). IPv4 parsing is "sloppy" as
 * kube-proxy's {@code ParseIPSloppy}: leading zeros are accepted and read as decimal. IPv6 is formatted canonically
 * (RFC 5952: lower case, longest run of two or more zero groups compressed).
 */
public final class IpAddresses {

    private IpAddresses() {
    }

    /** The 4 or 16 bytes of {@code text}, or empty when it is not an IP literal. */
    public static Optional<byte[]> parse(String text) {
        if (text == null || text.isEmpty()) {
            return Optional.empty();
        }
        return text.indexOf(':') >= 0 ? parseV6(text) : parseV4(text);
    }

    /** The canonical text of {@code text}, or empty when it is not an IP literal. */
    public static Optional<String> canonical(String text) {
        return parse(text).map(IpAddresses::format);
    }

    /** True when {@code text} is an IPv4 or IPv6 literal. */
    public static boolean isValid(String text) {
        return parse(text).isPresent();
    }

    /** The family of a 4- or 16-byte address. */
    public static IpFamily family(byte[] address) {
        return address.length == 4 ? IpFamily.IPV4 : IpFamily.IPV6;
    }

    /** Formats 4 or 16 bytes. */
    public static String format(byte[] a) {
        if (a.length == 4) {
            return (a[0] & 0xff) + "." + (a[1] & 0xff) + "." + (a[2] & 0xff) + "." + (a[3] & 0xff);
        }
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = ((a[2 * i] & 0xff) << 8) | (a[2 * i + 1] & 0xff);
        }
        int bestStart = -1;
        int bestLen = 0;
        for (int i = 0; i < 8; ) {
            if (groups[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLen) {
                bestStart = i;
                bestLen = j - i;
            }
            i = j;
        }
        if (bestLen < 2) {
            bestStart = -1;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                sb.append("::");
                i += bestLen - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            sb.append(Integer.toHexString(groups[i]));
        }
        return sb.toString();
    }

    private static Optional<byte[]> parseV4(String text) {
        // A hand-written scan (no split, no regex): this runs for every endpoint of every sync.
        byte[] out = new byte[4];
        int part = 0;
        int digits = 0;
        int v = 0;
        for (int k = 0; k < text.length(); k++) {
            char c = text.charAt(k);
            if (c == '.') {
                if (digits == 0 || part == 3) {
                    return Optional.empty();
                }
                out[part++] = (byte) v;
                digits = 0;
                v = 0;
            } else if (c >= '0' && c <= '9' && digits < 3) {
                v = v * 10 + (c - '0');
                digits++;
                if (v > 255) {
                    return Optional.empty();
                }
            } else {
                return Optional.empty();
            }
        }
        if (digits == 0 || part != 3) {
            return Optional.empty();
        }
        out[3] = (byte) v;
        return Optional.of(out);
    }

    private static Optional<byte[]> parseV6(String text) {
        if (text.indexOf('%') >= 0) {
            return Optional.empty();
        }
        int dbl = text.indexOf("::");
        if (dbl >= 0 && text.indexOf("::", dbl + 1) >= 0) {
            return Optional.empty();
        }
        byte[] out = new byte[16];
        if (dbl < 0) {
            return parseGroups(text, out, 0, 16) == 16 ? Optional.of(out) : Optional.empty();
        }
        String head = text.substring(0, dbl);
        String tail = text.substring(dbl + 2);
        byte[] headBytes = new byte[16];
        byte[] tailBytes = new byte[16];
        int headLen = head.isEmpty() ? 0 : parseGroups(head, headBytes, 0, 16);
        int tailLen = tail.isEmpty() ? 0 : parseGroups(tail, tailBytes, 0, 16);
        if (headLen < 0 || tailLen < 0 || headLen + tailLen > 14) {
            return Optional.empty();
        }
        System.arraycopy(headBytes, 0, out, 0, headLen);
        System.arraycopy(tailBytes, 0, out, 16 - tailLen, tailLen);
        return Optional.of(out);
    }

    /** Parses colon-separated groups (the last may be dotted IPv4) into out; returns the byte count or -1. */
    private static int parseGroups(String text, byte[] out, int offset, int max) {
        String[] groups = text.split(":", -1);
        int pos = offset;
        for (int g = 0; g < groups.length; g++) {
            String group = groups[g];
            if (g == groups.length - 1 && group.indexOf('.') >= 0) {
                Optional<byte[]> v4 = parseV4(group);
                if (v4.isEmpty() || pos + 4 > max) {
                    return -1;
                }
                System.arraycopy(v4.get(), 0, out, pos, 4);
                pos += 4;
                continue;
            }
            if (group.isEmpty() || group.length() > 4 || pos + 2 > max) {
                return -1;
            }
            int v;
            try {
                v = Integer.parseInt(group, 16);
            } catch (NumberFormatException e) {
                return -1;
            }
            if (group.charAt(0) == '+' || group.charAt(0) == '-') {
                return -1;
            }
            out[pos++] = (byte) (v >> 8);
            out[pos++] = (byte) v;
        }
        return pos - offset;
    }
}
