package io.winproxy.policy.plan;

import java.util.Locale;

/**
 * The one rule for HNS object IDs: they are compared without letter case (HNS returns upper-case GUIDs, winproxy
 * writes lower-case ones), so winproxy keeps them lower-case everywhere it stores or compares them.
 */
public final class HnsIds {
    private HnsIds() {
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
