package io.winproxy.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.emulator.FaultSettings;
import io.winproxy.hns.emulator.HnsCall;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@code hns fault|restart|rehydrate} on an emulated host, as an operator runs them beside a process (here: an
 * emulator instance) that uses the same state file.
 */
class HnsFaultCommandTest extends SharedHostCommandTest {
    @Test
    void faultsSetFromTheCommandLineApplyToTheProcessUsingTheHostAndShowAsJson() throws Exception {
        CliRunner.Result set = CliRunner.run("hns", "fault", "set", "--hns-state", host.stateFile(),
                "--rate", "0.25", "--seed", "42", "--calls", "create,delete", "--latency", "5ms",
                "--latency-of", "create=20ms", "--fail-next", "2", "--call", "create", "--object", "load-balancer");

        assertThat(set.exitCode()).as(set.err()).isZero();
        assertThat(set.out()).contains("random: 0.2500 of create,delete calls fail with 0x800706BA "
                + "RPC_S_SERVER_UNAVAILABLE (seed 42)").contains("fail-next: 2 x load-balancer create");
        FaultSettings seen = host.agentSide().faults().settings();
        assertThat(seen.random()).isEqualTo(new FaultSettings.RandomFaults(0.25, 42,
                HResults.RPC_S_SERVER_UNAVAILABLE, java.util.Set.of(HnsCall.CREATE, HnsCall.DELETE)));
        assertThat(seen.latency(HnsCall.CREATE)).isEqualTo(Duration.ofMillis(20));
        assertThat(seen.latency(HnsCall.QUERY)).isEqualTo(Duration.ofMillis(5));
        for (int i = 0; i < 2; i++) {
            assertThatThrownBy(() -> host.agentSide().createLoadBalancer(host.dnsLoadBalancer()))
                    .isInstanceOfSatisfying(HnsException.class, e -> assertThat(e.isServiceUnavailable()).isTrue());
        }

        CliRunner.Result show = CliRunner.run("hns", "fault", "show", "-o", "json", "--hns-state", host.stateFile());
        JsonNode json = new ObjectMapper().readTree(show.out());
        assertThat(json.get("failNext")).isEmpty();
        assertThat(json.get("random").get("seed").asLong()).isEqualTo(42);
        assertThat(json.get("latencyMillis").get("create").asLong()).isEqualTo(20);

        CliRunner.Result clear = CliRunner.run("hns", "fault", "clear", "--hns-state", host.stateFile());
        assertThat(clear.out().trim()).isEqualTo("no faults");
        assertThat(host.agentSide().faults().settings()).isEqualTo(FaultSettings.NONE);
    }

    @Test
    void theLimitsOfTheHostAreSetFromTheCommandLineAndShownWithTheirUse() throws Exception {
        CliRunner.Result set = CliRunner.run("hns", "fault", "set", "--hns-state", host.stateFile(),
                "--max-destinations", "64", "--port-pool", "640");

        assertThat(set.exitCode()).as(set.err()).isZero();
        assertThat(set.out()).contains("limit: 64 destinations per load balancer")
                .contains("port pool: 640 dynamic ports (64 per non-DSR load balancer)");
        assertThat(host.agentSide().limits().maxDestinationsPerLoadBalancer()).isEqualTo(64);
        JsonNode limits = new ObjectMapper().readTree(CliRunner.run("hns", "fault", "show", "-o", "json",
                "--hns-state", host.stateFile()).out()).get("limits");
        assertThat(limits.get("dynamicPorts").asInt()).isEqualTo(640);
        assertThat(limits.get("portsPerLoadBalancer").asInt()).isEqualTo(64);

        CliRunner.Result bad = CliRunner.run("hns", "fault", "set", "--hns-state", host.stateFile(),
                "--port-pool", "-1");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err()).contains("--port-pool");
        CliRunner.Result back = CliRunner.run("hns", "fault", "set", "--hns-state", host.stateFile(),
                "--max-destinations", "0", "--port-pool", "0");
        assertThat(back.out().trim()).isEqualTo("no faults");
    }

    @Test
    void anOutageFailsEveryCallOfTheOtherProcessWithServiceNotActive() {
        CliRunner.Result r = CliRunner.run("hns", "fault", "set", "--hns-state", host.stateFile(), "--outage", "1m");

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThatThrownBy(host.agentSide()::listLoadBalancerIds).isInstanceOfSatisfying(HnsException.class,
                e -> assertThat(e.hresult()).isEqualTo(HResults.ERROR_SERVICE_NOT_ACTIVE));
    }

    @Test
    void aRestartRehydratingLaterDropsTheLoadBalancerAndRehydrateBringsItBackWithItsOldId() {
        HostComputeLoadBalancer lb = host.agentSide().createLoadBalancer(host.dnsLoadBalancer());

        CliRunner.Result restart = CliRunner.run("hns", "restart", "--rehydrate-later", "--hns-state",
                host.stateFile());

        assertThat(restart.exitCode()).as(restart.err()).isZero();
        assertThat(restart.out()).contains("dropped 1 load balancer(s) and 0 remote endpoint(s)")
                .contains("'hns rehydrate' brings them back");
        assertThat(host.agentSide().listLoadBalancerIds()).isEmpty();
        assertThat(host.agentSide().getEndpoint(host.pod().id())).isPresent();

        CliRunner.Result rehydrate = CliRunner.run("hns", "rehydrate", "--hns-state", host.stateFile());

        assertThat(rehydrate.out()).contains("Rehydrated 1 load balancer(s)");
        assertThat(host.agentSide().listLoadBalancerIds()).containsExactly(lb.id());
    }

    @Test
    void invalidValuesAreOneLineNamingTheFlagWithExitCode2() {
        String[][] cases = {
                {"hns", "fault", "set", "--hns-state", host.stateFile(), "--rate", "1.5"},
                {"hns", "fault", "set", "--hns-state", host.stateFile(), "--fail-next", "1", "--call", "connect"},
                {"hns", "fault", "set", "--hns-state", host.stateFile(), "--rate", "0.1", "--hresult", "nope"},
                {"hns", "fault", "set", "--hns-state", host.stateFile(), "--latency", "fast"},
                {"hns", "restart", "--hns-state", host.stateFile(), "--rehydrate-after", "1s", "--rehydrate-later"},
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
        assertThat(host.agentSide().faults().settings()).isEqualTo(FaultSettings.NONE);
        assertThat(dir.resolve("typo.json")).doesNotExist();
    }

    @Test
    void everyEmulatedHostCommandNamesItselfWhenNoHostFileIsGiven() {
        String[][] cases = {
                {"hns fault set", "hns", "fault", "set", "--rate", "0.1"},
                {"hns fault clear", "hns", "fault", "clear"},
                {"hns fault show", "hns", "fault", "show"},
                {"hns variant set", "hns", "variant", "set", "modify-noop"},
                {"hns variant clear", "hns", "variant", "clear"},
                {"hns variant show", "hns", "variant", "show"},
                {"hns restart", "hns", "restart"},
                {"hns rehydrate", "hns", "rehydrate"},
        };
        for (String[] c : cases) {
            CliRunner.Result r = CliRunner.run(java.util.Arrays.copyOfRange(c, 1, c.length));
            assertThat(r.exitCode()).as(c[0]).isEqualTo(2);
            assertThat(r.err()).isEqualTo("winproxy: --hns-state: " + c[0] + " acts on an emulated host; give "
                    + "--hns-state FILE (the file a demo or agent uses)" + System.lineSeparator());
        }
    }
}
