package io.winproxy.hns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The version-range table of hcn-api.md section 3. */
class HnsFeaturesTest {

    @ParameterizedTest(name = "HNS {0}.{1}: DSR={2} IPv6DualStack={3} SessionAffinity={4} Modify={5} RemoteSubnet={6}")
    @CsvSource({
        "9, 1, false, false, false, false, false",
        "9, 2, false, false, false, false, true",
        "9, 3, true, false, false, false, true",
        "9, 99, true, false, false, false, true",
        "10, 0, false, false, false, false, true",
        "10, 1, false, false, false, false, true",
        "10, 2, true, false, false, false, true",
        "11, 9, true, false, false, false, true",
        "11, 10, true, true, false, false, true",
        "12, 0, true, true, true, false, true",
        "15, 3, true, true, true, false, true",
        "15, 4, true, true, true, false, true",
        "15, 5, true, true, true, true, true",
        "15, 99, true, true, true, true, true",
        "16, 0, true, true, true, true, true",
        "17, 2, true, true, true, true, true"
    })
    void featuresFollowTheHcsshimAndHnslibVersionRanges(int major, int minor, boolean dsr, boolean ipv6,
                                                        boolean affinity, boolean modify, boolean remoteSubnet) {
        HnsCapabilities caps = HnsFeatures.forVersion(new HnsVersion(major, minor));

        assertThat(caps.dsr()).isEqualTo(dsr);
        assertThat(caps.ipv6DualStack()).isEqualTo(ipv6);
        assertThat(caps.sessionAffinity()).isEqualTo(affinity);
        assertThat(caps.modifyLoadBalancer()).isEqualTo(modify);
        assertThat(caps.remoteSubnet()).isEqualTo(remoteSubnet);
    }

    @Test
    void l4ProxyHasItsPerMajorRanges() {
        assertThat(HnsFeature.L4_PROXY.isSupportedBy(new HnsVersion(9, 4))).isFalse();
        assertThat(HnsFeature.L4_PROXY.isSupportedBy(new HnsVersion(9, 5))).isTrue();
        assertThat(HnsFeature.L4_PROXY.isSupportedBy(new HnsVersion(10, 4))).isFalse();
        assertThat(HnsFeature.L4_PROXY.isSupportedBy(new HnsVersion(11, 11))).isTrue();
        assertThat(HnsFeature.L4_PROXY.isSupportedBy(new HnsVersion(13, 0))).isFalse();
        assertThat(HnsFeature.L4_PROXY.isSupportedBy(new HnsVersion(13, 1))).isTrue();
    }

    @Test
    void windowsServerPresetsHaveTheExpectedFeatures() {
        HnsCapabilities ws2019 = HnsFeatures.forVersion(HnsVersion.WINDOWS_SERVER_2019);
        HnsCapabilities ws2022 = HnsFeatures.forVersion(HnsVersion.WINDOWS_SERVER_2022);
        HnsCapabilities ws2025 = HnsFeatures.forVersion(HnsVersion.WINDOWS_SERVER_2025);

        assertThat(ws2019.dsr()).isTrue();
        assertThat(ws2019.ipv6DualStack()).isFalse();
        assertThat(ws2019.sessionAffinity()).isFalse();
        assertThat(ws2022.ipv6DualStack()).isTrue();
        assertThat(ws2022.sessionAffinity()).isTrue();
        assertThat(ws2022.modifyLoadBalancer()).isFalse();
        assertThat(ws2025.version()).isEqualTo(new HnsVersion(15, 4));
        assertThat(ws2025.modifyLoadBalancer()).isFalse();
        assertThat(ws2025.supports(HnsFeature.ACCELNET)).isTrue();
    }

    @Test
    void modifyLoadbalancerFollowsHnslibNotHcsshimSo154IsExcluded() {
        // hcsshim enables it from 15.4; on 15.4 (Windows Server 2025) the modify keeps the old backends
        // (kubernetes#131466), so hnslib's 15.5-15.x and 16+ ranges are used.
        assertThat(HnsFeature.MODIFY_LOADBALANCER.ranges()).containsExactly(
                new HnsFeature.VersionRange(new HnsVersion(15, 5), new HnsVersion(15, Integer.MAX_VALUE)),
                new HnsFeature.VersionRange(new HnsVersion(16, 0),
                        new HnsVersion(Integer.MAX_VALUE, Integer.MAX_VALUE)));
        assertThat(HnsFeature.MODIFY_LOADBALANCER.isSupportedBy(new HnsVersion(15, 4))).isFalse();
        assertThat(HnsFeature.MODIFY_LOADBALANCER.isSupportedBy(new HnsVersion(15, 5))).isTrue();
        assertThat(HnsFeature.MODIFY_LOADBALANCER.isSupportedBy(new HnsVersion(16, 0))).isTrue();
        assertThat(HnsFeatures.supported(HnsVersion.WINDOWS_SERVER_2025))
                .doesNotContain(HnsFeature.MODIFY_LOADBALANCER);
    }

    @Test
    void anUnprobedVersionHasNoFeatures() {
        assertThat(HnsFeatures.unknown().features()).isEmpty();
        assertThat(HnsFeatures.unknown().supports(HnsFeature.API_V2)).isFalse();
    }

    @Test
    void versionsParseFromNumbersAndPresetNames() {
        assertThat(HnsVersion.parse("13.3")).isEqualTo(new HnsVersion(13, 3));
        assertThat(HnsVersion.parse("ws2019")).isEqualTo(HnsVersion.WINDOWS_SERVER_2019);
        assertThat(HnsVersion.parse("Windows-Server-2025")).isEqualTo(HnsVersion.WINDOWS_SERVER_2025);
        assertThatThrownBy(() -> HnsVersion.parse("fifteen"))
                .hasMessage("not an HNS version (want MAJOR.MINOR or 2019/2022/2025): 'fifteen'");
    }
}
