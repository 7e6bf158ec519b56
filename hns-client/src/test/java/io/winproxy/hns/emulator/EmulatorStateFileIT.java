package io.winproxy.hns.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.hns.model.HostComputeLoadBalancer;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Separate processes on one state file see one emulated host and lose no update. */
class EmulatorStateFileIT {
    @TempDir
    Path dir;

    @Test
    void twoProcessesWritingConcurrentlyThroughOneStateFileLoseNoLoadBalancer() throws Exception {
        Path file = dir.resolve("hns.json");
        EmulatorFixture f = new EmulatorFixture(HnsEmulator.builder().stateFile(file).build());

        List<Process> children = new ArrayList<>();
        for (String vip : List.of("10.96.0.1", "10.96.0.2")) {
            children.add(new ProcessBuilder(javaBinary(), "-cp", System.getProperty("java.class.path"),
                    StateFileWriterMain.class.getName(), file.toString(), f.pod1.id(), vip, "15")
                    .redirectErrorStream(true).redirectOutput(dir.resolve(vip + ".log").toFile()).start());
        }
        for (Process p : children) {
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("child finished").isTrue();
            assertThat(p.exitValue()).as("child exit code").isZero();
        }

        List<HostComputeLoadBalancer> lbs = f.hns.listLoadBalancers();
        assertThat(lbs).hasSize(30);
        assertThat(lbs).extracting(HostComputeLoadBalancer::id).doesNotHaveDuplicates();
        assertThat(lbs).extracting(lb -> lb.frontendVip().orElseThrow()).containsOnly("10.96.0.1", "10.96.0.2");
    }

    @Test
    void aProcessThatHasLoadedTheHostReadsOnlyTheLinesAnotherProcessAppended() throws Exception {
        Path file = dir.resolve("hns.json");
        EmulatorFixture f = new EmulatorFixture(HnsEmulator.builder().stateFile(file).build());
        HnsEmulator reader = HnsEmulator.openExisting(file);
        assertThat(reader.listLoadBalancerIds()).isEmpty();
        int loads = reader.stateFileForTest().fullLoads();
        long generation = reader.stateFileForTest().generation();

        runWriter(file, f.pod1.id(), "10.96.0.1", 12);

        assertThat(reader.listLoadBalancers()).hasSize(12)
                .allSatisfy(lb -> assertThat(lb.frontendVip()).contains("10.96.0.1"));
        assertThat(reader.stateFileForTest().fullLoads()).isEqualTo(loads);
        assertThat(reader.stateFileForTest().generation()).isEqualTo(generation);
    }

    @Test
    void aProcessThatHasLoadedTheHostReloadsItAfterAnotherProcessCompactedTheLog() throws Exception {
        Path file = dir.resolve("hns.json");
        EmulatorFixture f = new EmulatorFixture(HnsEmulator.builder().stateFile(file).build());
        HnsEmulator reader = HnsEmulator.openExisting(file);
        assertThat(reader.listLoadBalancerIds()).isEmpty();
        int loads = reader.stateFileForTest().fullLoads();
        long generation = reader.stateFileForTest().generation();

        runWriter(file, f.pod1.id(), "10.96.0.2", 12, "0");

        assertThat(reader.listLoadBalancerIds()).hasSize(12).doesNotHaveDuplicates();
        assertThat(reader.stateFileForTest().fullLoads()).isEqualTo(loads + 1);
        assertThat(reader.stateFileForTest().generation()).isGreaterThan(generation);
        assertThat(f.hns.listLoadBalancerIds()).hasSize(12);
    }

    private void runWriter(Path file, String endpointId, String vip, int count, String... extra) throws Exception {
        List<String> command = new ArrayList<>(List.of(javaBinary(), "-cp", System.getProperty("java.class.path"),
                StateFileWriterMain.class.getName(), file.toString(), endpointId, vip, Integer.toString(count)));
        command.addAll(List.of(extra));
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve(vip + ".log").toFile()).start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("child finished").isTrue();
        assertThat(p.exitValue()).as("child exit code").isZero();
    }

    private static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java" + (File.separatorChar == '\\' ? ".exe" : ""))
                .toString();
    }
}
