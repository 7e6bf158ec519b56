package io.winproxy.hns.windows;

import com.sun.jna.platform.win32.Guid;
import java.util.Locale;
import java.util.regex.Pattern;

/** Conversions between HNS id strings (bare 36-character GUIDs, braces tolerated) and {@link Guid.GUID}. */
final class Guids {
    private static final Pattern GUID = Pattern.compile(
            "\\{?[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}}?");

    private Guids() {
    }

    /** The all-zero GUID: on create it asks HNS to assign the id. */
    static Guid.GUID zero() {
        return new Guid.GUID();
    }

    /**
     * Parses an id; {@code what} names the object for the message, e.g. {@code "load balancer"}.
     *
     * @throws IllegalArgumentException {@code invalid load balancer ID "x"} when id is not a GUID
     */
    static Guid.GUID parse(String id, String what) {
        if (id == null || !GUID.matcher(id).matches()) {
            throw new IllegalArgumentException("invalid " + what + " ID \"" + id + "\"");
        }
        return Guid.GUID.fromString(id);
    }

    /** The bare upper-case form HNS writes in {@code ID} members. */
    static String format(Guid.GUID guid) {
        String braced = guid.toGuidString();
        return braced.substring(1, braced.length() - 1).toUpperCase(Locale.ROOT);
    }
}
