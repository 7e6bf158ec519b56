package io.winproxy.policy.plan;

import java.util.Locale;

/**
 * The one rule for HNS object IDs: they are compared without letter case (HNS returns upper-case GUIDs, winproxy
 * writes lower-case ones), so winproxy keeps them lower-case everywhere it stores or compares them.
 *
 * <p>The IDs winproxy gives the objects it creates carry its mark: their first 48 bits are {@value #MARK} (ASCII
 * "winprx"), the rest is random (a version-4 GUID otherwise). HNS objects have no owner field; the mark makes an
 * object recognisably winproxy's even when the ownership journal that recorded it was lost or truncated, and lets an
 * operator see in {@code Get-HnsPolicyList} which policies are winproxy's. A CNI's or kube-proxy's random GUID
 * carries the mark with a probability of 2^-48.
 */
public final class HnsIds {
    /** The first 48 bits of every ID winproxy chooses, as GUID text. */
    public static final String MARK = "77696e70-7278-";

    private HnsIds() {
    }

    /** A new ID with winproxy's mark: {@code 77696e70-7278-4xxx-yxxx-xxxxxxxxxxxx}, from {@code random}. */
    public static String newId(java.util.random.RandomGenerator random) {
        long low = random.nextLong();
        int mid = random.nextInt();
        // version 4 in the third group, RFC 4122 variant (10xx) in the fourth.
        String third = String.format(Locale.ROOT, "4%03x", (mid >>> 16) & 0xfff);
        String fourth = String.format(Locale.ROOT, "%04x", (mid & 0x3fff) | 0x8000);
        return MARK + third + "-" + fourth + "-" + String.format(Locale.ROOT, "%012x", low & 0xffffffffffffL);
    }

    /** Whether an ID carries winproxy's mark (any letter case). */
    public static boolean isWinproxys(String id) {
        return id != null && id.length() >= MARK.length() && id.regionMatches(true, 0, MARK, 0, MARK.length());
    }

    /** The lower-case form of an ID ("" for null); the same instance when it is lower-case already. */
    public static String normalize(String id) {
        if (id == null) {
            return "";
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (c >= 'A' && c <= 'Z') {
                return id.toLowerCase(Locale.ROOT);
            }
        }
        return id;
    }
}
