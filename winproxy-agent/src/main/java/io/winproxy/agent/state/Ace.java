package io.winproxy.agent.state;

import java.util.Objects;

/**
 * One access control entry of a Windows DACL as the policy needs it.
 *
 * @param type  the ACE type byte ({@code ACCESS_ALLOWED_ACE_TYPE} 0, {@code ACCESS_DENIED_ACE_TYPE} 1, ...)
 * @param flags the ACE flags byte ({@code OBJECT_INHERIT_ACE} 1, {@code CONTAINER_INHERIT_ACE} 2,
 *              {@code INHERIT_ONLY_ACE} 8, {@code INHERITED_ACE} 0x10)
 * @param mask  the access mask
 * @param sid   the trustee as a string SID, e.g. {@code S-1-5-32-545}
 */
public record Ace(int type, int flags, int mask, String sid) {
    public static final int ACCESS_ALLOWED = 0;
    public static final int ACCESS_DENIED = 1;
    public static final int OBJECT_INHERIT = 0x1;
    public static final int CONTAINER_INHERIT = 0x2;

    public Ace {
        Objects.requireNonNull(sid, "sid");
    }

    /** An allow ACE (plain, object, callback or callback-object). */
    public boolean allows() {
        return type == ACCESS_ALLOWED || type == 5 || type == 9 || type == 11;
    }
}
