package io.winproxy.agent.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BindAddressTest {

    @Test
    void anEmptyOrBlankValueDisablesTheListener() {
        assertThat(BindAddress.parse("healthzBindAddress", "")).isEmpty();
        assertThat(BindAddress.parse("healthzBindAddress", "  ")).isEmpty();
        assertThat(BindAddress.parse("healthzBindAddress", null)).isEmpty();
    }

    @Test
    void parsesIpv4AndBracketedIpv6Addresses() {
        assertThat(BindAddress.parse("f", "0.0.0.0:10256")).contains(new BindAddress("0.0.0.0", 10256));
        assertThat(BindAddress.parse("f", "[::]:10256")).contains(new BindAddress("::", 10256));
        assertThat(BindAddress.parse("f", "[::1]:10249").map(BindAddress::toString)).contains("[::1]:10249");
        assertThat(BindAddress.parse("f", "127.0.0.1:10249").map(BindAddress::toString))
                .isEqualTo(Optional.of("127.0.0.1:10249"));
    }

    @Test
    void theUnspecifiedAddressesBindTheDualStackWildcard() {
        assertThat(new BindAddress("0.0.0.0", 1).socketAddress().getAddress().isAnyLocalAddress()).isTrue();
        assertThat(new BindAddress("::", 1).isWildcard()).isTrue();
        assertThat(new BindAddress("127.0.0.1", 1).isWildcard()).isFalse();
        assertThat(new BindAddress("127.0.0.1", 1).socketAddress().getAddress().isLoopbackAddress()).isTrue();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "10256|must be IP:port",
        "0.0.0.0|must be IP:port",
        "::1:10256|must be IP:port (write an IPv6 address in brackets)",
        "[127.0.0.1]:10256|must be IP:port",
        "localhost:10256|must be a valid IP",
        "256.0.0.1:10256|must be a valid IP",
        ":10256|must be a valid IP",
        "0.0.0.0:http|must be a valid port",
        "0.0.0.0:65536|must be a valid port",
        "0.0.0.0:-1|must be a valid port"})
    void rejectsValuesThatAreNotIpColonPortWithAOneLineMessageNamingTheFlag(String value, String reason) {
        assertThatThrownBy(() -> BindAddress.parse("metricsBindAddress", value))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("metricsBindAddress: " + reason + ", got \"" + value + "\"");
    }
}
