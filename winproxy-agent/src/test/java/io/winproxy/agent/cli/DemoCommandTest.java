package io.winproxy.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.winproxy.agent.config.ProxyFlags;
import io.winproxy.policy.model.NodeInfo;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class DemoCommandTest {
    private static final List<NodeInfo> NODES = List.of(node("win-node-1", "10.244.1.0/24"),
            node("win-node-2", "10.244.2.0/24"));

    private static NodeInfo node(String name, String cidr) {
        return new NodeInfo(name, Map.of(), List.of(cidr), List.of(), "", false, List.of());
    }

    private static ProxyFlags flags(String... args) {
        DemoCommand demo = new DemoCommand();
        ProxyFlags.prepare(new CommandLine(demo)).parseArgs(args);
        return demo.flags;
    }

    @Test
    void theHostnameOverridePicksTheOtherWindowsNode() {
        assertThat(EmulatedCluster.nodeName("WIN-NODE-2", NODES)).isEqualTo("win-node-2");
        assertThat(EmulatedCluster.nodeName("", NODES)).isEqualTo("win-node-1");
    }

    @Test
    void aHostnameOverrideThatIsNoNodeOfTheManifestsIsAUsageErrorListingTheNodes() {
        assertThatThrownBy(() -> EmulatedCluster.nodeName("nosuch", NODES))
                .isInstanceOf(UsageException.class)
                .hasMessage("--hostname-override: no Node nosuch in the cluster (Nodes: win-node-1, win-node-2)");
    }

    @Test
    void theDemoDefaultsGoIntoACopyAndNeverOverrideWhatTheUserGave() throws Exception {
        ProxyFlags given = flags("--metrics-bind-address", "127.0.0.1:19999");
        ProxyFlags demo = DemoCommand.demoFlags(given);
        assertThat(demo.get("--healthz-bind-address")).contains("127.0.0.1:10256");
        assertThat(demo.get("--metrics-bind-address")).contains("127.0.0.1:19999");
        assertThat(demo.get("--iptables-min-sync-period")).contains("1s");
        assertThat(given.isSet("--healthz-bind-address")).as("the parsed flags are left as given").isFalse();
        assertThat(given.isSet("--iptables-min-sync-period")).isFalse();
    }

    @Test
    void theSourceVipIsAddressTwoOfThisNodesPodCidr() {
        assertThat(EmulatedCluster.sourceVipFor(NODES, "win-node-2")).contains("10.244.2.2");
    }

    @Test
    void withAStateFileTheJournalLivesBesideItUnlessStateDirIsGiven() {
        HnsHostOptions host = new HnsHostOptions();
        host.hnsState = Path.of("/tmp/wp/hns.json");
        assertThat(host.stateDir(Map.of())).isEqualTo(Path.of("/tmp/wp/hns.json.winproxy"));
        host.stateDir = Path.of("/srv/state");
        assertThat(host.stateDir(Map.of())).isEqualTo(Path.of("/srv/state"));
    }

    @Test
    void apiOnlyWithoutAStateFileOrWithOnceIsOneUsageLineAndExit2() {
        CliRunner.Result noState = CliRunner.run("demo", "--api-only");
        assertThat(noState.exitCode()).isEqualTo(2);
        assertThat(noState.errLines()).isEqualTo(1);
        assertThat(noState.err()).startsWith("winproxy: --api-only: give --hns-state FILE");

        CliRunner.Result once = CliRunner.run("demo", "--api-only", "--once", "--hns-state", "/tmp/x.json");
        assertThat(once.exitCode()).isEqualTo(2);
        assertThat(once.err()).startsWith("winproxy: --api-only: cannot be combined with --once");
    }

    @Test
    void everySubcommandAnswersHelp() {
        for (String command : List.of("demo", "cleanup", "plan", "trace", "version")) {
            CliRunner.Result r = CliRunner.run(command, "--help");
            assertThat(r.exitCode()).as(command).isZero();
            assertThat(r.out()).as(command).startsWith("Usage: winproxy " + command);
        }
        assertThat(CliRunner.run("hns", "delete", "--help").out()).startsWith("Usage: winproxy hns delete");
    }
}
