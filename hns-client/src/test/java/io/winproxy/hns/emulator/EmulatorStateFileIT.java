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

    private static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java" + (File.separatorChar == '\\' ? ".exe" : ""))
                .toString();
    }
}
