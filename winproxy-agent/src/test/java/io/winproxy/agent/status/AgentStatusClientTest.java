package io.winproxy.agent.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.agent.health.HttpProbe;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Where {@code winproxy status} asks for the agent, and what it says when none answers. */
class AgentStatusClientTest {

    @Test
    void anAgentBoundToEveryAddressIsAskedOnLoopback() {
        assertThat(AgentStatusClient.loopbackOf("0.0.0.0:10249")).contains("127.0.0.1:10249");
        assertThat(AgentStatusClient.loopbackOf("[::]:10249")).contains("[::1]:10249");
        assertThat(AgentStatusClient.loopbackOf("127.0.0.1:10249")).contains("127.0.0.1:10249");
        assertThat(AgentStatusClient.loopbackOf("192.168.1.11:9000")).contains("192.168.1.11:9000");
        assertThat(AgentStatusClient.loopbackOf("")).isEmpty();
    }

    @Test
    void noAgentListeningIsEmptyWithTheReason() {
        AgentStatusClient client = new AgentStatusClient();
        String address = "127.0.0.1:" + HttpProbe.freePort();
        assertThat(client.fetch(address, null)).isEqualTo(Optional.empty());
        assertThat(client.problem()).isEqualTo("none answered at " + address);
    }
}
