package io.winproxy.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
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
}
