package io.winproxy.policy.net;

import java.util.Arrays;
import java.util.Optional;

/** A CIDR prefix such as {@code 10.244.1.0/24}; immutable. */
public final class IpPrefix {
    private final byte[] network;
    private final int bits;

    private IpPrefix(byte[] network, int bits) {
        this.network = network;
        this.bits = bits;
    }

    /** Parses "address/bits"; a bare address is a host prefix. Empty when malformed. */
    public static Optional<IpPrefix> parse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        int slash = text.indexOf('/');
        String addr = slash < 0 ? text : text.substring(0, slash);
        Optional<byte[]> bytes = IpAddresses.parse(addr);
        if (bytes.isEmpty()) {
            return Optional.empty();
        }
        int max = bytes.get().length * 8;
        int bits = max;
        if (slash >= 0) {
            try {
                bits = Integer.parseInt(text.substring(slash + 1));
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
            if (bits < 0 || bits > max) {
                return Optional.empty();
            }
        }
        return Optional.of(new IpPrefix(bytes.get(), bits));
    }

    /** True when {@code ip} (a textual address) lies inside this prefix and has the same family. */
    public boolean contains(String ip) {
        return IpAddresses.parse(ip).map(this::contains).orElse(false);
    }

    /** True when the 4- or 16-byte address {@code a} lies inside this prefix and has the same family. */
    public boolean contains(byte[] a) {
        if (a.length != network.length) {
            return false;
        }
        int full = bits / 8;
        for (int i = 0; i < full; i++) {
            if (a[i] != network[i]) {
                return false;
            }
        }
        int rest = bits % 8;
        if (rest == 0) {
            return true;
        }
        int mask = (0xff << (8 - rest)) & 0xff;
        return (a[full] & mask) == (network[full] & mask);
    }

    /** The prefix length. */
    public int bits() {
        return bits;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IpPrefix p && p.bits == bits && Arrays.equals(p.network, network);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(network) * 31 + bits;
    }

    @Override
    public String toString() {
        return IpAddresses.format(network) + "/" + bits;
    }
}
