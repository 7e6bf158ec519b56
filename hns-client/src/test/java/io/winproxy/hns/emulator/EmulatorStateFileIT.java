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
            children.add(startWriter(file, f.pod1.id(), vip, 15));
        }
        for (Process p : children) {
            awaitSuccess(p);
        }

        List<HostComputeLoadBalancer> lbs = f.hns.listLoadBalancers();
        assertThat(lbs).hasSize(30);
        assertThat(lbs).extracting(HostComputeLoadBalancer::id).doesNotHaveDuplicates();
        assertThat(lbs).extracting(lb -> lb.frontendVip().orElseThrow()).containsOnly("10.96.0.1", "10.96.0.2");
    }

    @Test
    void aProcessThatHasLoadedTheHostReadsOnlyTheLinesAnotherProcessAppended() throws Exception {
        Watched w = aHostLoadedByAReader();

        runWriter(w.file(), w.host().pod1.id(), "10.96.0.1", 12);

        assertThat(w.reader().listLoadBalancers()).hasSize(12)
                .allSatisfy(lb -> assertThat(lb.frontendVip()).contains("10.96.0.1"));
        assertThat(w.reader().stateFileForTest().fullLoads()).isEqualTo(w.loads());
        assertThat(w.reader().stateFileForTest().generation()).isEqualTo(w.generation());
    }

    @Test
    void aProcessThatHasLoadedTheHostReloadsItAfterAnotherProcessCompactedTheLog() throws Exception {
        Watched w = aHostLoadedByAReader();

        runWriter(w.file(), w.host().pod1.id(), "10.96.0.2", 12, "0");

        assertThat(w.reader().listLoadBalancerIds()).hasSize(12).doesNotHaveDuplicates();
        assertThat(w.reader().stateFileForTest().fullLoads()).isEqualTo(w.loads() + 1);
        assertThat(w.reader().stateFileForTest().generation()).isGreaterThan(w.generation());
        assertThat(w.host().hns.listLoadBalancerIds()).hasSize(12);
    }

    /**
     * A host in {@code dir/hns.json} with the fixture's network, and another process's view of it, loaded once while
     * it held no load balancer; {@code loads} and {@code generation} are that view's counters after the load.
     */
    private record Watched(Path file, EmulatorFixture host, HnsEmulator reader, int loads, long generation) {
    }

    private Watched aHostLoadedByAReader() {
        Path file = dir.resolve("hns.json");
        EmulatorFixture f = new EmulatorFixture(HnsEmulator.builder().stateFile(file).build());
        HnsEmulator reader = HnsEmulator.openExisting(file);
        assertThat(reader.listLoadBalancerIds()).isEmpty();
        return new Watched(file, f, reader, reader.stateFileForTest().fullLoads(),
                reader.stateFileForTest().generation());
    }

    /** Runs {@link StateFileWriterMain} in a child JVM to completion (exit code 0). */
    private void runWriter(Path file, String endpointId, String vip, int count, String... extra) throws Exception {
        awaitSuccess(startWriter(file, endpointId, vip, count, extra));
    }

    /** Starts {@link StateFileWriterMain} in a child JVM; its output goes to {@code dir/VIP.log}. */
    private Process startWriter(Path file, String endpointId, String vip, int count, String... extra)
            throws Exception {
        List<String> command = new ArrayList<>(List.of(javaBinary(), "-cp", System.getProperty("java.class.path"),
                StateFileWriterMain.class.getName(), file.toString(), endpointId, vip, Integer.toString(count)));
        command.addAll(List.of(extra));
        return new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve(vip + ".log").toFile()).start();
    }

    private static void awaitSuccess(Process p) throws InterruptedException {
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("child finished").isTrue();
        assertThat(p.exitValue()).as("child exit code").isZero();
    }

    private static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java" + (File.separatorChar == '\\' ? ".exe" : ""))
                .toString();
    }
}
