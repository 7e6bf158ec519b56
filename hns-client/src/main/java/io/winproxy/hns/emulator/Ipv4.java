package io.winproxy.hns.emulator;

import java.util.Optional;

/** Minimal IPv4 / CIDR arithmetic for the emulator (address checks and IPAM allocation). */
final class Ipv4 {
    private Ipv4() {
    }

    /** The address as an unsigned 32-bit value in a long, or empty when {@code text} is not dotted-quad IPv4. */
    static Optional<Long> parse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        String[] parts = text.trim().split("\\.", -1);
        if (parts.length != 4) {
            return Optional.empty();
        }
        long v = 0;
        for (String p : parts) {
            if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(Character::isDigit)) {
                return Optional.empty();
            }
            int octet = Integer.parseInt(p);
            if (octet > 255) {
                return Optional.empty();
            }
            v = (v << 8) | octet;
        }
        return Optional.of(v);
    }

    static String format(long v) {
        return ((v >> 24) & 255) + "." + ((v >> 16) & 255) + "." + ((v >> 8) & 255) + "." + (v & 255);
    }

    /** {@code [network, broadcast]} of an IPv4 CIDR, or empty when it is not one. */
    static Optional<long[]> range(String cidr) {
        if (cidr == null || !cidr.contains("/")) {
            return Optional.empty();
        }
        String[] parts = cidr.trim().split("/", 2);
        Optional<Long> base = parse(parts[0]);
        if (base.isEmpty() || !parts[1].matches("[0-9]{1,2}")) {
            return Optional.empty();
        }
        int len = Integer.parseInt(parts[1]);
        if (len > 32) {
            return Optional.empty();
        }
        long mask = len == 0 ? 0 : (0xFFFFFFFFL << (32 - len)) & 0xFFFFFFFFL;
        long net = base.get() & mask;
        return Optional.of(new long[] {net, net | (~mask & 0xFFFFFFFFL)});
    }

    static boolean contains(String cidr, String ip) {
        Optional<long[]> r = range(cidr);
        Optional<Long> a = parse(ip);
        return r.isPresent() && a.isPresent() && a.get() >= r.get()[0] && a.get() <= r.get()[1];
    }

    static int prefixLength(String cidr) {
        return range(cidr).isPresent() ? Integer.parseInt(cidr.trim().split("/", 2)[1]) : 0;
    }

    /** Whether {@code text} looks like an IPv6 literal (hex groups and colons, optional embedded IPv4). */
    static boolean isIpv6Literal(String text) {
        return text != null && text.contains(":") && text.matches("[0-9A-Fa-f:.]+") && text.length() <= 45;
    }
}
