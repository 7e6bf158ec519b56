package io.winproxy.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** On an overlay network without a source VIP the proxy refuses to start, in one line naming the flag, as upstream. */
class SourceVipFailFastTest {
    @TempDir
    Path dir;

    @Test
    void anOverlayNetworkWithoutSourceVipOrCniEndpointIsAUsageError() {
        Path state = dir.resolve("hns.json");
        new EmulatedHost(HnsEmulator.builder().stateFile(state).build(), EmulatedHost.NetworkType.OVERLAY, "vxlan0",
                "win-a").syncNetwork(List.of(new EmulatedHost.Node("win-a", "10.244.1.0/24", "192.168.1.11")));

        CliRunner.Result r = CliRunner.run("--hns-state=" + state, "--network-name=vxlan0", "--hostname-override=win-a",
                "--master=http://127.0.0.1:9", "--healthz-bind-address=", "--metrics-bind-address=");

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err().strip()).startsWith("winproxy: --source-vip:").doesNotContain("\n");
        assertThat(HnsEmulator.openExisting(state).listLoadBalancerIds()).isEmpty();
    }
}
