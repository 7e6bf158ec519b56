package io.winproxy.policy.model;

/** An IP family. */
public enum IpFamily {
    IPV4, IPV6;

    /** The family of a textual IP address (IPv6 iff it contains a colon); no validation. */
    public static IpFamily of(String ip) {
        return ip.indexOf(':') >= 0 ? IPV6 : IPV4;
    }
}
