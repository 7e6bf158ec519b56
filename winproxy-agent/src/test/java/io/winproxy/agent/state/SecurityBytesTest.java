package io.winproxy.agent.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The binary SID and ACL forms (MS-DTYP) round-trip, with known bytes for well-known SIDs. */
class SecurityBytesTest {

    @Test
    void administratorsHasItsWellKnownBinaryForm() {
        assertThat(SecurityBytes.sid("S-1-5-32-544")).containsExactly(1, 2, 0, 0, 0, 0, 0, 5, 32, 0, 0, 0, 0x20, 2,
                0, 0);
        assertThat(SecurityBytes.sidString(SecurityBytes.sid("S-1-5-32-544"), 0)).isEqualTo("S-1-5-32-544");
    }

    @Test
    void largeSubAuthoritiesRoundTripUnsigned() {
        String sid = "S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464";
        assertThat(SecurityBytes.sidString(SecurityBytes.sid(sid), 0)).isEqualTo(sid);
    }

    @Test
    void anAclRoundTripsWithItsHeader() {
        List<Ace> aces = AclPolicy.protectedDacl();
        byte[] acl = SecurityBytes.acl(aces);
        assertThat(acl[0]).isEqualTo((byte) 2);
        assertThat(SecurityBytes.aclSize(acl)).isEqualTo(acl.length).isEqualTo(8 + 2 * (8 + 12) + 4);
        assertThat(SecurityBytes.parseAcl(acl)).isEqualTo(aces);
    }
}
