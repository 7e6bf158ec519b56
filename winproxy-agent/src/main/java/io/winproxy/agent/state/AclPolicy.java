package io.winproxy.agent.state;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Pure decision: may anyone but the operating system and administrators write a state directory with this owner
 * and DACL? Conservative: any allow ACE (inherit-only ones included, since they apply to the files winproxy
 * creates) that grants a write-like right to another trustee is a problem, whatever deny ACEs precede it.
 */
public final class AclPolicy {
    public static final String SYSTEM = "S-1-5-18";
    public static final String ADMINISTRATORS = "S-1-5-32-544";
    /** CREATOR OWNER: stands for whoever creates a child, who must already be able to write. */
    static final String CREATOR_OWNER = "S-1-3-0";
    static final String TRUSTED_INSTALLER = "S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464";

    /** Rights that let a trustee change the directory's contents or its protection. */
    static final int WRITE_RIGHTS = 0x2 /* FILE_WRITE_DATA, FILE_ADD_FILE */
            | 0x4 /* FILE_APPEND_DATA, FILE_ADD_SUBDIRECTORY */
            | 0x10 /* FILE_WRITE_EA */
            | 0x40 /* FILE_DELETE_CHILD */
            | 0x100 /* FILE_WRITE_ATTRIBUTES */
            | 0x10000 /* DELETE */
            | 0x40000 /* WRITE_DAC */
            | 0x80000 /* WRITE_OWNER */
            | 0x02000000 /* MAXIMUM_ALLOWED */
            | 0x10000000 /* GENERIC_ALL */
            | 0x40000000 /* GENERIC_WRITE */;

    private static final Set<String> OWNERS = Set.of(SYSTEM, ADMINISTRATORS);
    private static final Set<String> TRUSTED = Set.of(SYSTEM, ADMINISTRATORS, CREATOR_OWNER, TRUSTED_INSTALLER);

    private AclPolicy() {
    }

    /**
     * @param owner the owner's string SID
     * @param dacl  the DACL's entries; empty Optional for a NULL DACL (everyone has full control)
     * @return a one-line reason naming the trustee and the fix, or empty when only administrators can write
     */
    public static Optional<String> problem(String dir, String owner, Optional<List<Ace>> dacl) {
        if (!OWNERS.contains(owner.toUpperCase(Locale.ROOT))) {
            return Optional.of(dir + " is owned by " + owner + ", not SYSTEM or Administrators; " + FIX);
        }
        if (dacl.isEmpty()) {
            return Optional.of(dir + " has no DACL (everyone may write it); " + FIX);
        }
        for (Ace ace : dacl.get()) {
            if (ace.allows() && (ace.mask() & WRITE_RIGHTS) != 0
                    && !TRUSTED.contains(ace.sid().toUpperCase(Locale.ROOT))) {
                return Optional.of(dir + " lets " + ace.sid() + " write (access mask 0x"
                        + Integer.toHexString(ace.mask()) + "); " + FIX);
            }
        }
        return Optional.empty();
    }

    /** The remedy, as install-service.ps1 applies it. */
    static final String FIX = "allow only SYSTEM and Administrators (install-service.ps1 resets it; or see "
            + "docs/operations.md, \"Who may write the state directory\")";

    /** The DACL winproxy creates: SYSTEM and Administrators full control, inherited by files and subdirectories. */
    public static List<Ace> protectedDacl() {
        int fileAllAccess = 0x1F01FF;
        int inherit = Ace.OBJECT_INHERIT | Ace.CONTAINER_INHERIT;
        return List.of(new Ace(Ace.ACCESS_ALLOWED, inherit, fileAllAccess, SYSTEM),
                new Ace(Ace.ACCESS_ALLOWED, inherit, fileAllAccess, ADMINISTRATORS));
    }
}
