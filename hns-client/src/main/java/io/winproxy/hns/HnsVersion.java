package io.winproxy.hns;

/** An HNS version as {@code /globals/version} reports it. */
public record HnsVersion(int major, int minor) implements Comparable<HnsVersion> {
    @Override
    public int compareTo(HnsVersion o) {
        return major != o.major ? Integer.compare(major, o.major) : Integer.compare(minor, o.minor);
    }

    @Override
    public String toString() {
        return major + "." + minor;
    }
}
