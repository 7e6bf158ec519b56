package io.winproxy.agent.dataplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.winproxy.agent.metrics.AgentMetrics;
import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.emulator.HnsEmulator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class MeteredHnsClientTest {
    private record Call(String operation, int hresult, Duration latency) {
    }

    private final List<Call> calls = new ArrayList<>();
    private final AtomicLong nanos = new AtomicLong();
    private final AgentMetrics metrics = new AgentMetrics() {
        @Override
        public void hnsCall(String operation, int hresult, Duration latency) {
            calls.add(new Call(operation, hresult, latency));
        }
    };

    @Test
    void aFailedCallIsCountedWithItsHresultAndASuccessfulOneWithSOk() {
        HnsEmulator emulator = HnsEmulator.builder().build();
        MeteredHnsClient metered = new MeteredHnsClient(new ForwardingHnsClient(emulator) {
            @Override
            public void deleteLoadBalancer(String id) {
                nanos.addAndGet(3_000_000);
                throw new HnsException(HResults.RPC_S_SERVER_UNAVAILABLE, "HcnDeleteLoadBalancer", "");
            }
        }, metrics, nanos::get);

        metered.listLoadBalancerIds();
        assertThatThrownBy(() -> metered.deleteLoadBalancer("77696e70-7278-4000-8000-000000000001"))
                .isInstanceOf(HnsException.class);

        assertThat(calls).hasSize(2);
        assertThat(calls.get(0).hresult()).isEqualTo(HResults.S_OK);
        assertThat(calls.get(1).hresult()).isEqualTo(HResults.RPC_S_SERVER_UNAVAILABLE).isNotZero();
        assertThat(calls.get(1).latency()).isEqualTo(Duration.ofMillis(3));
        assertThat(calls.get(1).operation()).isNotEqualTo(calls.get(0).operation());
    }
}
