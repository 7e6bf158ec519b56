package io.winproxy.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.agent.state.InstanceLock;
import io.winproxy.hns.emulator.HnsEmulator;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 17.3/17.5 on the command line: bad state directories exit 2 naming the flag; a held one exits 1. */
class StateDirCommandLineTest {
    @TempDir
    Path dir;

    private Path hnsState;

    @BeforeEach
    void emulatedHost() {
        hnsState = dir.resolve("hns.json");
        HnsEmulator.builder().stateFile(hnsState).build();
    }

    @Test
    void anEmptyStateDirIsAUsageErrorNamingTheFlag() {
        CliRunner.Result r = CliRunner.run("cleanup", "--hns-state", hnsState.toString(), "--state-dir", "");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("winproxy: --state-dir: must not be empty" + System.lineSeparator());
    }

    @Test
    void aStateDirThatIsAFileIsAUsageErrorNamingTheFlag() throws Exception {
        Path file = Files.writeString(dir.resolve("file"), "x");
        CliRunner.Result r = CliRunner.run("cleanup", "--hns-state", hnsState.toString(), "--state-dir",
                file.toString());
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("winproxy: --state-dir: " + file + " is not a directory"
                + System.lineSeparator());
    }

    @Test
    void cleanupBesideARunningInstanceIsRefusedInOneLineNamingTheHolder() {
        Path state = dir.resolve("state");
        CliRunner.Result first = CliRunner.run("cleanup", "--hns-state", hnsState.toString(), "--state-dir",
                state.toString());
        assertThat(first.exitCode()).as(first.err()).isZero();

        try (InstanceLock held = InstanceLock.acquire(state)) {
            CliRunner.Result r = CliRunner.run("cleanup", "--hns-state", hnsState.toString(), "--state-dir",
                    state.toString());
            assertThat(r.exitCode()).isEqualTo(1);
            assertThat(r.err()).startsWith("winproxy: the state directory " + state + " is in use by another "
                    + "winproxy (pid " + ProcessHandle.current().pid() + ", started ");
            assertThat(r.err().strip()).doesNotContain("\n");
        }
    }
}
