package io.winproxy.hns;

/**
 * An HNS version as {@code /globals/version} reports it ({@code {"Major":N,"Minor":M}}).
 *
 * <p>The presets are the versions the emulator uses to stand for a Windows Server release. Sources:
 * <ul>
 *   <li>{@link #WINDOWS_SERVER_2019}: 9.5. Windows Server 2019 reports HNS 9.x; the feature table of hcn-api.md
 *       section 3 distinguishes 9.2 (Api.V2, RemoteSubnet), 9.3 (DSR) and 9.5 (L4Proxy), so a fully patched 2019 is
 *       taken as 9.5 (best-supported value: DSR yes, IPv6 dual stack / session affinity / modify no).</li>
 *   <li>{@link #WINDOWS_SERVER_2022}: 13.3. The spec's sample object {@code Version} 55834574851 decodes to 13.3;
 *       2022 has DSR, IPv6DualStack (11.10), SessionAffinity (12.0) and SetPolicy (13.0) but not
 *       ModifyLoadbalancer (15.4), which matches what kube-proxy users report for 2022.</li>
 *   <li>{@link #WINDOWS_SERVER_2025}: 15.4, as identified by a public report (kubernetes#131466).</li>
 * </ul>
 */
public record HnsVersion(int major, int minor) implements Comparable<HnsVersion> {
    public static final HnsVersion WINDOWS_SERVER_2019 = new HnsVersion(9, 5);
    public static final HnsVersion WINDOWS_SERVER_2022 = new HnsVersion(13, 3);
    public static final HnsVersion WINDOWS_SERVER_2025 = new HnsVersion(15, 4);

    public HnsVersion {
        if (major < 0 || minor < 0) {
            throw new IllegalArgumentException("HNS version must not be negative: " + major + "." + minor);
        }
    }

    /**
     * Parses {@code "15.4"}, or a preset name ({@code "2019"}, {@code "ws2022"}, {@code "windows-server-2025"}, case
     * and separators ignored). Throws {@link IllegalArgumentException} with a one-line message otherwise.
     */
    public static HnsVersion parse(String text) {
        String t = text == null ? "" : text.trim();
        String compact = t.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9.]", "");
        if (compact.endsWith("2019")) {
            return WINDOWS_SERVER_2019;
        }
        if (compact.endsWith("2022")) {
            return WINDOWS_SERVER_2022;
        }
        if (compact.endsWith("2025")) {
            return WINDOWS_SERVER_2025;
        }
        String[] parts = t.split("\\.");
        try {
            if (parts.length == 2) {
                return new HnsVersion(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
            }
        } catch (IllegalArgumentException e) {
            // fall through to the one-line message below
        }
        throw new IllegalArgumentException("not an HNS version (want MAJOR.MINOR or 2019/2022/2025): '" + t + "'");
    }

    public boolean isAtLeast(int otherMajor, int otherMinor) {
        return compareTo(new HnsVersion(otherMajor, otherMinor)) >= 0;
    }

    @Override
    public int compareTo(HnsVersion o) {
        return major != o.major ? Integer.compare(major, o.major) : Integer.compare(minor, o.minor);
    }

    @Override
    public String toString() {
        return major + "." + minor;
    }
}
