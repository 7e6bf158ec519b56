package io.winproxy.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code --hns-max-backends-per-load-balancer}: a bad value is one line naming the flag, exit code 2. */
class BackendLimitFlagTest {
    @ParameterizedTest
    @ValueSource(strings = {"0", "-5"})
    void aNonPositiveLimitIsAUsageErrorNamingTheFlag(String value) {
        CliRunner.Result r = CliRunner.run("--hns=emulated", "--network-name=cbr0", "--hostname-override=win-a",
                "--master=http://127.0.0.1:9", "--healthz-bind-address=", "--metrics-bind-address=",
                "--hns-max-backends-per-load-balancer=" + value);

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err().strip()).startsWith("winproxy: --hns-max-backends-per-load-balancer:")
                .doesNotContain("\n");
    }

    @ParameterizedTest
    @ValueSource(strings = {"many", "1.5"})
    void aValueThatIsNotANumberIsAUsageErrorNamingTheFlag(String value) {
        CliRunner.Result r = CliRunner.run("plan", "--example-cluster", "--hns-max-backends-per-load-balancer",
                value);

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("--hns-max-backends-per-load-balancer");
    }
}
