package io.winproxy.policy.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.policy.desired.HnsFlags;
import io.winproxy.policy.desired.MacAddresses;
import io.winproxy.policy.desired.NetworkType;
import io.winproxy.policy.desired.NodeNetwork;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** IP parsing/formatting, prefixes, conjured MACs and HNS flag names. */
class IpAddressesTest {

    /** An input and its canonical form; no form (an empty cell) where the input is no IP address. */
    @ParameterizedTest(name = "\"{0}\" -> {1}")
    @CsvSource(nullValues = "null", value = {
        // IPv4 is parsed sloppily and formatted canonically.
        "10.0.0.1, 10.0.0.1", "010.001.000.01, 10.1.0.1", "10.0.0.256,", "10.0.0,", "10.0.0.-1,", "example.com,",
        "'',", "null,",
        // IPv6 is formatted as RFC 5952 says.
        "2001:DB8:0:0:0:0:0:1, 2001:db8::1", "fd00::, fd00::", "::1, ::1", "::, ::",
        "2001:db8:0:1:0:0:0:1, 2001:db8:0:1::1", "2001:db8:1:1:1:1:0:1, 2001:db8:1:1:1:1:0:1",
        "::ffff:10.0.0.1, ::ffff:a00:1", "1::2::3,", "fe80::1%eth0,", "12345::1,", "1:2:3:4:5:6:7:8:9,", "+1::1,"})
    void addressesAreParsedAndFormattedCanonically(String input, String canonical) {
        assertThat(IpAddresses.canonical(input)).isEqualTo(Optional.ofNullable(canonical));
    }

    @Test
    void prefixesContainAddressesOfTheirFamilyOnly() {
        IpPrefix p = IpPrefix.parse("192.168.2.0/24").orElseThrow();
        assertThat(p.contains("192.168.2.3")).isTrue();
        assertThat(p.contains("192.168.3.3")).isFalse();
        assertThat(p.contains("fd00::1")).isFalse();
        assertThat(IpPrefix.parse("10.244.0.0/14").orElseThrow().contains("10.247.255.1")).isTrue();
        assertThat(IpPrefix.parse("10.244.0.0/14").orElseThrow().contains("10.248.0.1")).isFalse();
        assertThat(IpPrefix.parse("fd00:244::/64").orElseThrow().contains("fd00:244::5")).isTrue();
        assertThat(IpPrefix.parse("10.0.0.0/33")).isEmpty();
        assertThat(IpPrefix.parse("nope/8")).isEmpty();
        assertThat(IpPrefix.parse("10.0.0.7").orElseThrow().bits()).isEqualTo(32);
    }

    @Test
    void theLongestRemoteSubnetPrefixGivesTheProviderAddress() {
        NodeNetwork node = NodeNetwork.builder(NetworkType.OVERLAY, "n").remoteSubnet("10.244.0.0/16", "10.0.0.9")
                .remoteSubnet("10.244.1.0/24", "10.0.0.2").remoteSubnet("garbage", "10.0.0.7").build();
        assertThat(node.providerAddressOf("10.244.1.5")).contains("10.0.0.2");
        assertThat(node.providerAddressOf("10.244.2.5")).contains("10.0.0.9");
        assertThat(node.providerAddressOf("10.0.0.7")).contains("10.0.0.7");
        assertThat(node.providerAddressOf("172.16.0.1")).isEmpty();
    }

    @Test
    void conjuredMacsFollowWinkernel() {
        assertThat(MacAddresses.conjure("192.168.2.3")).isEqualTo("02-11-c0-a8-02-03");
        assertThat(MacAddresses.conjure("fd00::1:2:3:4")).isEqualTo("02-11-04-00-03-00");
        assertThat(MacAddresses.conjure("bogus")).isEqualTo("02-11-22-33-44-55");
    }

    @Test
    void flagNamesAreReadable() {
        assertThat(HnsFlags.lbFlagNames(3)).isEqualTo("DSR|IPv6");
        assertThat(HnsFlags.lbFlagNames(0)).isEqualTo("None");
        assertThat(HnsFlags.portMappingFlagNames(18)).isEqualTo("LocalRoutedVIP|VipExternalIP");
        assertThat(HnsFlags.portMappingFlagNames(28)).isEqualTo("UseMux|PreserveDIP|VipExternalIP");
        assertThat(HnsFlags.portMappingFlagNames(64 | 1)).isEqualTo("ILB|0x40");
        assertThat(HnsFlags.distributionTypeName(2)).isEqualTo("SourceIP");
    }
}
