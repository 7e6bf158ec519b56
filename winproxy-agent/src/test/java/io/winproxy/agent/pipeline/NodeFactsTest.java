package io.winproxy.agent.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Which node IPs {@code bindAddress} overrides: its concrete IPs, one or a dual-stack pair, in canonical text (IPv4 read
 * sloppily, as kube-proxy's ParseIPSloppy: leading zeros are decimal); unspecified ones none.
 */
class NodeFactsTest {

    @ParameterizedTest(name = "[{0}] overrides [{1}]")
    @CsvSource(delimiter = '|', value = {
            "10.0.0.5 | 10.0.0.5",
            "fd00::5 | fd00::5",
            "'10.0.0.5,fd00::5' | '10.0.0.5,fd00::5'",
            "'fd00::5,10.0.0.5' | 'fd00::5,10.0.0.5'",
            "0.0.0.0 | ''",
            ":: | ''",
            "0:0:0:0:0:0:0:0 | ''",
            "'0.0.0.0,::' | ''",
            "'0.0.0.0,fd00::5' | fd00::5",
            "'' | ''",
            "010.000.000.005 | 10.0.0.5",
            "FD00:0:0::5 | fd00::5"})
    void theConcreteIpsOfTheBindAddressInOrder(String bindAddress, String expected) {
        assertThat(NodeFacts.nodeIpOverride(bindAddress)).isEqualTo(expected);
    }
}
