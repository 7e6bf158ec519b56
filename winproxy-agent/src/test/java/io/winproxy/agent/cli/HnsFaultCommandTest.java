package io.winproxy.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.FaultSettings;
import io.winproxy.hns.emulator.HnsCall;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hns fault|restart|rehydrate} on an emulated host, as an operator runs them beside a process (here: an
 * emulator instance) that uses the same state file.
 */
class HnsFaultCommandTest {
    @TempDir
    Path dir;

    private Path state;
    private HnsEmulator agentSide;
    private HostComputeEndpoint pod;

    @BeforeEach
    void anEmulatedHostUsedByAnotherProcess() {
        state = dir.resolve("hns.json");
        agentSide = HnsEmulator.builder().stateFile(state).build();
        EmulatedHost host = new EmulatedHost(agentSide, EmulatedHost.NetworkType.L2BRIDGE, null, "node-a");
        host.syncNetwork(List.of(new EmulatedHost.Node("node-a", "10.244.1.0/24", "192.168.10.21")));
        pod = host.ensureLocalEndpoint("10.244.1.7");
    }

    private HostComputeLoadBalancer dnsLoadBalancer() {
        return HostComputeLoadBalancer.of(List.of(pod.id()), "", "10.96.0.10",
                new LoadBalancerPortMapping(LoadBalancerPortMapping.PROTOCOL_UDP, 53, 53, 0, 0), 0);
    }

    @Test
    void faultsSetFromTheCommandLineApplyToTheProcessUsingTheHostAndShowAsJson() throws Exception {
        CliRunner.Result set = CliRunner.run("hns", "fault", "set", "--hns-state", state.toString(),
                "--rate", "0.25", "--seed", "42", "--calls", "create,delete", "--latency", "5ms",
                "--latency-of", "create=20ms", "--fail-next", "2", "--call", "create", "--object", "load-balancer");

        assertThat(set.exitCode()).as(set.err()).isZero();
        assertThat(set.out()).contains("random: 0.2500 of create,delete calls fail with 0x800706BA "
                + "RPC_S_SERVER_UNAVAILABLE (seed 42)").contains("fail-next: 2 x load-balancer create");
        FaultSettings seen = agentSide.faults().settings();
        assertThat(seen.random()).isEqualTo(new FaultSettings.RandomFaults(0.25, 42,
                HResults.RPC_S_SERVER_UNAVAILABLE, java.util.Set.of(HnsCall.CREATE, HnsCall.DELETE)));
        assertThat(seen.latency(HnsCall.CREATE)).isEqualTo(Duration.ofMillis(20));
        assertThat(seen.latency(HnsCall.QUERY)).isEqualTo(Duration.ofMillis(5));
        for (int i = 0; i < 2; i++) {
            assertThatThrownBy(() -> agentSide.createLoadBalancer(dnsLoadBalancer()))
                    .isInstanceOfSatisfying(HnsException.class, e -> assertThat(e.isServiceUnavailable()).isTrue());
        }

        CliRunner.Result show = CliRunner.run("hns", "fault", "show", "-o", "json", "--hns-state", state.toString());
        JsonNode json = new ObjectMapper().readTree(show.out());
        assertThat(json.get("failNext")).isEmpty();
        assertThat(json.get("random").get("seed").asLong()).isEqualTo(42);
        assertThat(json.get("latencyMillis").get("create").asLong()).isEqualTo(20);

        CliRunner.Result clear = CliRunner.run("hns", "fault", "clear", "--hns-state", state.toString());
        assertThat(clear.out().trim()).isEqualTo("no faults");
        assertThat(agentSide.faults().settings()).isEqualTo(FaultSettings.NONE);
    }

    @Test
    void anOutageFailsEveryCallOfTheOtherProcessWithServiceNotActive() {
        CliRunner.Result r = CliRunner.run("hns", "fault", "set", "--hns-state", state.toString(), "--outage", "1m");

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThatThrownBy(agentSide::listLoadBalancerIds).isInstanceOfSatisfying(HnsException.class,
                e -> assertThat(e.hresult()).isEqualTo(HResults.ERROR_SERVICE_NOT_ACTIVE));
    }

    @Test
    void aRestartRehydratingLaterDropsTheLoadBalancerAndRehydrateBringsItBackWithItsOldId() {
        HostComputeLoadBalancer lb = agentSide.createLoadBalancer(dnsLoadBalancer());

        CliRunner.Result restart = CliRunner.run("hns", "restart", "--rehydrate-later", "--hns-state",
                state.toString());

        assertThat(restart.exitCode()).as(restart.err()).isZero();
        assertThat(restart.out()).contains("dropped 1 load balancer(s) and 0 remote endpoint(s)")
                .contains("'hns rehydrate' brings them back");
        assertThat(agentSide.listLoadBalancerIds()).isEmpty();
        assertThat(agentSide.getEndpoint(pod.id())).isPresent();

        CliRunner.Result rehydrate = CliRunner.run("hns", "rehydrate", "--hns-state", state.toString());

        assertThat(rehydrate.out()).contains("Rehydrated 1 load balancer(s)");
        assertThat(agentSide.listLoadBalancerIds()).containsExactly(lb.id());
    }

    @Test
    void invalidValuesAreOneLineNamingTheFlagWithExitCode2() {
        String[][] cases = {
                {"hns", "fault", "set", "--hns-state", state.toString(), "--rate", "1.5"},
                {"hns", "fault", "set", "--hns-state", state.toString(), "--fail-next", "1", "--call", "connect"},
                {"hns", "fault", "set", "--hns-state", state.toString(), "--rate", "0.1", "--hresult", "nope"},
                {"hns", "fault", "set", "--hns-state", state.toString(), "--latency", "fast"},
                {"hns", "restart", "--hns-state", state.toString(), "--rehydrate-after", "1s", "--rehydrate-later"},
                {"hns", "fault", "show"},
                {"hns", "restart", "--hns-state", dir.resolve("typo.json").toString()},
        };
        String[] flags = {"--rate", "--call", "--hresult", "--latency", "--rehydrate-later", "--hns-state",
                "--hns-state"};
        for (int i = 0; i < cases.length; i++) {
            CliRunner.Result r = CliRunner.run(cases[i]);
            assertThat(r.exitCode()).as(String.join(" ", cases[i])).isEqualTo(2);
            assertThat(r.errLines()).as(r.err()).isEqualTo(1);
            assertThat(r.err()).contains(flags[i]);
        }
        assertThat(agentSide.faults().settings()).isEqualTo(FaultSettings.NONE);
        assertThat(dir.resolve("typo.json")).doesNotExist();
    }
}
