package io.winproxy.agent.health;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A listen address given as {@code IP:port} ({@code [v6]:port} for IPv6), as kube-proxy's
 * {@code healthzBindAddress} and {@code metricsBindAddress}. An unspecified IP ({@code 0.0.0.0} or {@code ::})
 * means every local address of both families, as Go's "tcp" listener does. Port 0 picks an ephemeral port (tests).
 *
 * @param ip   the IP literal as given, without brackets
 * @param port 0..65535
 */
public record BindAddress(String ip, int port) {

    private static final Pattern IPV4 = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");

    /**
     * Parses a bind address flag value; empty or blank disables the listener.
     *
     * @param flag the flag or field name, for the error message
     * @throws IllegalArgumentException with a one-line message naming {@code flag} when the value is not IP:port
     */
    public static Optional<BindAddress> parse(String flag, String value) {
        if (value == null || value.isBlank()) {
            return Optional.empty();
        }
        String text = value.trim();
        int colon = text.lastIndexOf(':');
        if (colon < 0) {
            throw invalid(flag, value, "must be IP:port");
        }
        String host = text.substring(0, colon);
        String portText = text.substring(colon + 1);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
            if (host.indexOf(':') < 0) {
                throw invalid(flag, value, "must be IP:port");
            }
        } else if (host.indexOf(':') >= 0) {
            throw invalid(flag, value, "must be IP:port (write an IPv6 address in brackets)");
        }
        if (!isIpLiteral(host)) {
            throw invalid(flag, value, "must be a valid IP");
        }
        int port;
        try {
            port = Integer.parseInt(portText);
        } catch (NumberFormatException e) {
            throw invalid(flag, value, "must be a valid port");
        }
        if (port < 0 || port > 65535) {
            throw invalid(flag, value, "must be a valid port");
        }
        return Optional.of(new BindAddress(host, port));
    }

    /** Whether {@code ip} is the unspecified address of its family. */
    public boolean isWildcard() {
        return address().isAnyLocalAddress();
    }

    /** The socket address to bind: the dual-stack wildcard for an unspecified IP, else the IP itself. */
    public InetSocketAddress socketAddress() {
        return isWildcard() ? new InetSocketAddress(port) : new InetSocketAddress(address(), port);
    }

    @Override
    public String toString() {
        return ip.indexOf(':') >= 0 ? "[" + ip + "]:" + port : ip + ":" + port;
    }

    private InetAddress address() {
        try {
            return InetAddress.getByName(ip); // an IP literal: no name lookup
        } catch (UnknownHostException e) {
            throw new IllegalStateException("not an IP literal: " + ip, e);
        }
    }

    /** Whether {@code host} is an IPv4 dotted quad or an IPv6 literal; never resolves names. */
    static boolean isIpLiteral(String host) {
        var ipv4 = IPV4.matcher(host);
        if (ipv4.matches()) {
            for (int group = 1; group <= 4; group++) {
                if (Integer.parseInt(ipv4.group(group)) > 255) {
                    return false;
                }
            }
            return true;
        }
        if (host.indexOf(':') < 0 || !host.matches("[0-9A-Fa-f:.]+")) {
            return false;
        }
        try {
            InetAddress.getByName(host);
            return true;
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static IllegalArgumentException invalid(String flag, String value, String reason) {
        return new IllegalArgumentException(flag + ": " + reason + ", got \"" + value + "\"");
    }
}
