package io.winproxy.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.agent.dataplane.HnsDataplane;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.model.HostComputeEndpoint;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The "restart without churn" journey on the demo: a second run on the same emulated host (the bundled
 * example cluster, whose EndpointSlices arrive one by one and include pods of this node) makes no HNS write, with
 * the ownership journal kept and with it lost.
 */
class DemoRestartIT {
    @TempDir
    Path dir;

    private CliRunner.Result demoOnce(String stateDir) {
        CliRunner.Result r = CliRunner.run("demo", "--once", "--healthz-bind-address=", "--metrics-bind-address=",
                "--hns-state", dir.resolve("hns.json").toString(), "--state-dir", dir.resolve(stateDir).toString());
        assertThat(r.exitCode()).as(r.err()).isZero();
        return r;
    }

    @Test
    void aRestartedDemoOnTheSameHostMakesNoCreatesAndNoDeletes() {
        assertThat(demoOnce("state").out()).contains("--- sync 1: 19 created, 0 modified, 0 deleted, 0 adopted");

        assertThat(demoOnce("state").out()).contains("--- sync 1: 0 created, 0 modified, 0 deleted, 0 adopted");
    }

    @Test
    void aRestartAfterTheJournalWasLostAdoptsEveryLoadBalancerAndRemoteEndpointWithoutWrites() {
        demoOnce("state");

        assertThat(demoOnce("fresh-state").out())
                .contains("--- sync 1: 0 created, 0 modified, 0 deleted, 19 adopted");
    }

    @Test
    void withoutSourceVipTheOverlayDemoProgramsEverythingWithAnHnsAssignedVipThatSurvivesARestart() {
        demoOnce("state");
        demoOnce("state");

        HnsEmulator host = HnsEmulator.openExisting(dir.resolve("hns.json"));
        String network = host.listNetworks().stream().filter(n -> n.isOverlay()).findFirst().orElseThrow().id();
        List<HostComputeEndpoint> vips = host.listEndpoints(network).stream()
                .filter(e -> HnsDataplane.SOURCE_VIP_ENDPOINT_NAME.equals(e.name())).toList();
        assertThat(vips).singleElement().satisfies(e -> assertThat(e.isRemote()).isFalse());
        String vip = vips.get(0).ipAddresses().get(0);
        assertThat(host.listLoadBalancers()).isNotEmpty().filteredOn(lb -> !lb.isDsr())
                .allSatisfy(lb -> assertThat(lb.sourceVip()).isEqualTo(vip));
    }
}
