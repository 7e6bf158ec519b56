package io.winproxy.hns.windows;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.hns.HnsCapabilities;
import io.winproxy.hns.HnsVersion;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The features of an HNS version follow hcsshim's version ranges (hcn-api.md section 3). */
class WindowsHnsClientCapabilitiesTest {

    @ParameterizedTest(name = "HNS {0}.{1}: dsr={2} ipv6={3} affinity={4} modify={5} remoteSubnet={6}")
    @CsvSource({
            "7, 2, false, false, false, false, false",
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
            "15, 4, true, true, true, true, true",
            "16, 0, true, true, true, true, true"})
    void featuresAreEnabledByVersionRange(int major, int minor, boolean dsr, boolean ipv6, boolean affinity,
                                          boolean modify, boolean remoteSubnet) {
        HnsVersion version = new HnsVersion(major, minor);

        assertThat(WindowsHnsClient.capabilitiesOf(version))
                .isEqualTo(new HnsCapabilities(version, dsr, ipv6, affinity, modify, remoteSubnet));
    }
}
