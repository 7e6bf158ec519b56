package io.winproxy.agent.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Optional;

/**
 * Go-compatible parsing of flag and field values: {@code strconv.ParseBool}, integers, floats, and the IP and CIDR
 * syntax of Go's {@code net} package (no DNS lookups, no zones, no IPv4 octets with leading zeros).
 * Every method throws {@link IllegalArgumentException} with a short reason that callers prefix with the flag or
 * field name. Stateless.
 */
final class FlagValues {
    private FlagValues() {
    }

    /** Go's {@code strconv.ParseBool}: 1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False. */
    static boolean parseBool(String text) {
        switch (text) {
            case "1", "t", "T", "TRUE", "true", "True":
                return true;
            case "0", "f", "F", "FALSE", "false", "False":
                return false;
            default:
                throw new IllegalArgumentException("strconv.ParseBool: parsing \"" + text + "\": invalid syntax");
        }
    }

    static int parseInt(String text) {
        try {
            return Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("strconv.ParseInt: parsing \"" + text + "\": invalid syntax");
        }
    }

    static float parseFloat(String text) {
        try {
            float value = Float.parseFloat(text.trim());
            if (Float.isNaN(value) || Float.isInfinite(value)) {
                throw new NumberFormatException();
            }
            return value;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("strconv.ParseFloat: parsing \"" + text + "\": invalid syntax");
        }
    }

    /** The address if {@code text} is an IPv4 or IPv6 literal as Go's {@code net.ParseIP} accepts it. */
    static Optional<InetAddress> parseIp(String text) {
        if (text == null || text.isEmpty() || text.indexOf('%') >= 0) {
            return Optional.empty();
        }
        if (text.indexOf(':') < 0) {
            return parseIpv4(text);
        }
        for (char c : text.toCharArray()) {
            if (Character.digit(c, 16) < 0 && c != ':' && c != '.') {
                return Optional.empty();
            }
        }
        try {
            return Optional.of(InetAddress.getByName(text));
        } catch (UnknownHostException e) {
            return Optional.empty();
        }
    }

    private static Optional<InetAddress> parseIpv4(String text) {
        String[] parts = text.split("\\.", -1);
        if (parts.length != 4) {
            return Optional.empty();
        }
        byte[] bytes = new byte[4];
        for (int i = 0; i < 4; i++) {
            String p = parts[i];
            if (p.isEmpty() || p.length() > 3 || (p.length() > 1 && p.charAt(0) == '0')
                    || !p.chars().allMatch(Character::isDigit)) {
                return Optional.empty();
            }
            int v = Integer.parseInt(p);
            if (v > 255) {
                return Optional.empty();
            }
            bytes[i] = (byte) v;
        }
        try {
            return Optional.of(InetAddress.getByAddress(bytes));
        } catch (UnknownHostException e) {
            return Optional.empty();
        }
    }

    static boolean isIp(String text) {
        return parseIp(text).isPresent();
    }

    static boolean isIpv6(String text) {
        return parseIp(text).map(a -> a.getAddress().length == 16).orElse(false);
    }

    /** Whether {@code text} is {@code IP/prefix} with a prefix length valid for the address family. */
    static boolean isCidr(String text) {
        int slash = text.indexOf('/');
        if (slash < 0) {
            return false;
        }
        Optional<InetAddress> ip = parseIp(text.substring(0, slash));
        String bits = text.substring(slash + 1);
        if (ip.isEmpty() || bits.isEmpty() || bits.length() > 3 || !bits.chars().allMatch(Character::isDigit)
                || (bits.length() > 1 && bits.charAt(0) == '0')) {
            return false;
        }
        int prefix = Integer.parseInt(bits);
        return prefix <= ip.get().getAddress().length * 8;
    }

    static boolean isCidrIpv6(String text) {
        return isCidr(text) && isIpv6(text.substring(0, text.indexOf('/')));
    }

    /**
     * Splits {@code host:port} as Go's {@code net.SplitHostPort} does ({@code [v6]:port} for IPv6).
     *
     * @return host and port text, or empty when the text has no port
     */
    static Optional<String[]> splitHostPort(String text) {
        if (text.startsWith("[")) {
            int end = text.indexOf(']');
            if (end < 0 || end + 1 >= text.length() || text.charAt(end + 1) != ':') {
                return Optional.empty();
            }
            return Optional.of(new String[] {text.substring(1, end), text.substring(end + 2)});
        }
        int colon = text.lastIndexOf(':');
        if (colon < 0 || text.indexOf(':') != colon) {
            return Optional.empty();
        }
        return Optional.of(new String[] {text.substring(0, colon), text.substring(colon + 1)});
    }

    /** {@code ip:port}, with brackets around an IPv6 address. */
    static String joinHostPort(String host, int port) {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    /**
     * kube-proxy's {@code AppendPortIfNeeded}: an address that already has a port, or is not an IP, is returned
     * unchanged; a bare IP gets {@code port}.
     */
    static String appendPortIfNeeded(String address, int port) {
        if (splitHostPort(address).isPresent()) {
            return address;
        }
        if (!isIp(address)) {
            return address;
        }
        return joinHostPort(address, port);
    }

    static String lower(String text) {
        return text.toLowerCase(Locale.ROOT);
    }
}
