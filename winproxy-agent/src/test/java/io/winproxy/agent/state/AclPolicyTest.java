package io.winproxy.agent.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The pure "may others write this state directory?" decision, over constructed owners and ACE lists. */
class AclPolicyTest {
    private static final String USERS = "S-1-5-32-545";
    private static final String AUTHENTICATED_USERS = "S-1-5-11";
    private static final String SOME_USER = "S-1-5-21-1004336348-1177238915-682003330-1001";
    private static final int READ_EXECUTE = 0x1200A9;
    private static final int INHERIT = Ace.OBJECT_INHERIT | Ace.CONTAINER_INHERIT;

    @Test
    void theDaclWinproxyCreatesPasses() {
        assertThat(AclPolicy.problem("D", AclPolicy.ADMINISTRATORS, Optional.of(AclPolicy.protectedDacl())))
                .isEmpty();
        assertThat(AclPolicy.problem("D", AclPolicy.SYSTEM, Optional.of(AclPolicy.protectedDacl()))).isEmpty();
    }

    @Test
    void readAccessForUsersPasses() {
        assertThat(AclPolicy.problem("D", AclPolicy.ADMINISTRATORS, Optional.of(List.of(
                new Ace(Ace.ACCESS_ALLOWED, INHERIT, READ_EXECUTE, USERS),
                new Ace(Ace.ACCESS_ALLOWED, INHERIT, 0x1F01FF, AclPolicy.SYSTEM))))).isEmpty();
    }

    @Test
    void programDatasInheritedCreateFilesRightForUsersIsRefused() {
        // C:\ProgramData grants BUILTIN\Users "create files / write data" on the folder and its subfolders.
        Optional<String> problem = AclPolicy.problem("C:\\ProgramData\\winproxy", AclPolicy.ADMINISTRATORS,
                Optional.of(List.of(new Ace(Ace.ACCESS_ALLOWED, INHERIT, 0x1F01FF, AclPolicy.SYSTEM),
                        new Ace(Ace.ACCESS_ALLOWED, INHERIT | 0x10, READ_EXECUTE, USERS),
                        new Ace(Ace.ACCESS_ALLOWED, Ace.CONTAINER_INHERIT | 0x10, 0x116, USERS))));
        assertThat(problem).hasValueSatisfying(reason -> assertThat(reason)
                .startsWith("C:\\ProgramData\\winproxy lets " + USERS + " write (access mask 0x116); ")
                .contains("install-service.ps1").doesNotContain("\n"));
    }

    @Test
    void eachWriteLikeRightAloneIsRefused() {
        for (int right : new int[] {0x2, 0x4, 0x10, 0x40, 0x100, 0x10000, 0x40000, 0x80000, 0x10000000,
                0x40000000}) {
            assertThat(AclPolicy.problem("D", AclPolicy.SYSTEM, Optional.of(List.of(
                    new Ace(Ace.ACCESS_ALLOWED, 0, right, AUTHENTICATED_USERS)))))
                    .as("right 0x%x", right).isPresent();
        }
    }

    @Test
    void anInheritOnlyWriteGrantIsRefusedBecauseWinproxysFilesWouldInheritIt() {
        assertThat(AclPolicy.problem("D", AclPolicy.ADMINISTRATORS, Optional.of(List.of(
                new Ace(Ace.ACCESS_ALLOWED, Ace.OBJECT_INHERIT | 0x8, 0x2, SOME_USER))))).isPresent();
    }

    @Test
    void denyEntriesAndCreatorOwnerDoNotCount() {
        assertThat(AclPolicy.problem("D", AclPolicy.ADMINISTRATORS, Optional.of(List.of(
                new Ace(Ace.ACCESS_DENIED, 0, 0x1F01FF, USERS),
                new Ace(Ace.ACCESS_ALLOWED, INHERIT | 0x8, 0x10000000, AclPolicy.CREATOR_OWNER))))).isEmpty();
    }

    @Test
    void anOwnerOtherThanSystemOrAdministratorsIsRefused() {
        assertThat(AclPolicy.problem("D", SOME_USER, Optional.of(AclPolicy.protectedDacl())))
                .hasValueSatisfying(reason -> assertThat(reason)
                        .startsWith("D is owned by " + SOME_USER + ", not SYSTEM or Administrators; "));
    }

    @Test
    void aNullDaclIsRefused() {
        assertThat(AclPolicy.problem("D", AclPolicy.SYSTEM, Optional.empty()))
                .hasValueSatisfying(reason -> assertThat(reason).startsWith("D has no DACL"));
    }
}
