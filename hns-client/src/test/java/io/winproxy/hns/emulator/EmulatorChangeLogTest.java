package io.winproxy.hns.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.model.HcnJson;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The state file is a snapshot plus an append-only change log: writes append, the log is compacted into the snapshot
 * once it outgrows it, a torn last line is ignored, and a process that has loaded the host reads only what others
 * appended since.
 */
class EmulatorChangeLogTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private Path file;
    private Path log;

    private HnsEmulator emulator() {
        return HnsEmulator.builder().stateFile(file).echo(EchoProfile.VERBATIM).build();
    }

    private HnsEmulator emulator(long compactMinBytes) {
        return HnsEmulator.builder().stateFile(file).echo(EchoProfile.VERBATIM).compactMinBytes(compactMinBytes)
                .build();
    }

    private EmulatorFixture fixture() {
        file = dir.resolve("hns.json");
        log = dir.resolve("hns.json.log");
        return new EmulatorFixture(emulator());
    }

    @Test
    void aWriteAppendsOneLineToTheLogAndLeavesTheSnapshotAsItWas() throws Exception {
        EmulatorFixture f = fixture();
        String snapshot = Files.readString(file);
        List<String> before = Files.readAllLines(log);

        HostComputeLoadBalancer lb = f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0,
                f.pod1.id()));
        f.hns.deleteLoadBalancer(lb.id());
        f.hns.listLoadBalancers();

        assertThat(Files.readString(file)).isEqualTo(snapshot);
        List<String> after = Files.readAllLines(log);
        assertThat(after).hasSize(before.size() + 2).startsWith(before.toArray(String[]::new));
        JsonNode header = JSON.readTree(after.get(0));
        assertThat(header.get("Format").asText()).isEqualTo("winproxy-hns-emulator-changes");
        assertThat(header.get("Generation").asLong()).isEqualTo(1);
        JsonNode put = JSON.readTree(after.get(after.size() - 2)).get("Changes").get(0);
        assertThat(put.get("Op").asText()).isEqualTo("PutLoadBalancer");
        assertThat(put.get("LoadBalancer").get("ID").asText()).isEqualTo(lb.id());
        JsonNode remove = JSON.readTree(after.get(after.size() - 1)).get("Changes").get(0);
        assertThat(remove.get("Op").asText()).isEqualTo("RemoveLoadBalancer");
        assertThat(remove.get("ID").asText()).isEqualTo(lb.id());
    }

    @Test
    void anOperationThatChangesSeveralObjectsIsOneLine() throws Exception {
        EmulatorFixture f = fixture();
        f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0, f.pod1.id(), f.pod2.id()));
        f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.2", 80, 0, f.pod1.id()));
        int lines = Files.readAllLines(log).size();

        f.host.removeLocalEndpoint("10.244.1.5");

        List<String> after = Files.readAllLines(log);
        assertThat(after).hasSize(lines + 1);
        assertThat(JSON.readTree(after.get(lines)).get("Changes")).extracting(c -> c.get("Op").asText())
                .containsExactly("PutLoadBalancer", "PutLoadBalancer", "RemoveEndpoint");
    }

    @Test
    void theLogIsCompactedIntoTheSnapshotOnceItOutgrowsItAndTheGenerationAdvances() throws Exception {
        file = dir.resolve("hns.json");
        log = dir.resolve("hns.json.log");
        EmulatorFixture f = new EmulatorFixture(emulator(0));
        long generation = f.hns.stateFileForTest().generation();
        int lbs = 0;
        while (f.hns.stateFileForTest().generation() == generation) {
            f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.1." + lbs, 80, 0, f.pod1.id()));
            lbs++;
            assertThat(lbs).as("load balancers before a compaction").isLessThan(100);
        }

        assertThat(Files.readAllLines(log)).hasSize(1);
        assertThat(JSON.readTree(Files.readString(log)).get("Generation").asLong()).isEqualTo(generation + 1);
        JsonNode snapshot = JSON.readTree(Files.readString(file));
        assertThat(snapshot.get("LoadBalancers")).hasSize(lbs);
        assertThat(snapshot.get("Endpoints")).hasSize(3);
        assertThat(HnsEmulator.openExisting(file).listLoadBalancerIds()).hasSize(lbs);
    }

    @Test
    void withTheDefaultBoundTheLogIsNotCompactedAfterAFewWrites() throws Exception {
        EmulatorFixture f = fixture();
        for (int port = 1; port <= 20; port++) {
            f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", port, 0, f.pod1.id()));
        }

        assertThat(f.hns.stateFileForTest().generation()).isEqualTo(1);
        assertThat(Files.readAllLines(log)).hasSizeGreaterThan(20);
    }

    @Test
    void aTornLastLineIsIgnoredAndCutOffByTheNextAppend() throws Exception {
        EmulatorFixture f = fixture();
        f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0, f.pod1.id()));
        // A writer died in the middle of its append.
        Files.writeString(log, "{\"Changes\":[{\"Op\":\"PutLoadBalancer\",\"LoadBalancer\":{\"ID\":\"ab",
                StandardCharsets.UTF_8, StandardOpenOption.APPEND);

        HnsEmulator reader = emulator();
        assertThat(reader.listLoadBalancerIds()).hasSize(1);
        assertThat(f.hns.listLoadBalancerIds()).hasSize(1);
        reader.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.2", 80, 0, f.pod1.id()));

        assertThat(Files.readString(log)).doesNotContain("\"ID\":\"ab{").endsWith("\n");
        assertThat(Files.readAllLines(log)).allSatisfy(line -> assertThat(JSON.readTree(line)).isNotNull());
        assertThat(f.hns.listLoadBalancerIds()).hasSize(2);
        assertThat(emulator().listLoadBalancerIds()).hasSize(2);
    }

    @Test
    void aLoadedProcessReadsOnlyTheNewLinesOfTheLog() {
        EmulatorFixture f = fixture();
        HnsEmulator other = emulator();
        assertThat(other.listLoadBalancerIds()).isEmpty();
        int loads = other.stateFileForTest().fullLoads();

        for (int port = 1; port <= 5; port++) {
            f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", port, 0, f.pod1.id()));
        }
        f.hns.setVersion(HnsVersion.WINDOWS_SERVER_2022);

        assertThat(other.listLoadBalancerIds()).hasSize(5);
        assertThat(other.version()).isEqualTo(HnsVersion.WINDOWS_SERVER_2022);
        assertThat(other.stateFileForTest().fullLoads()).isEqualTo(loads);
        assertThat(f.hns.stateFileForTest().fullLoads()).as("the process that created the host").isZero();
    }

    @Test
    void aLoadedProcessReloadsEverythingAfterAnotherProcessCompacted() {
        file = dir.resolve("hns.json");
        log = dir.resolve("hns.json.log");
        EmulatorFixture f = new EmulatorFixture(emulator(0));
        HnsEmulator reader = emulator();
        HostComputeLoadBalancer first = f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0,
                f.pod1.id()));
        assertThat(reader.listLoadBalancerIds()).containsExactly(first.id());
        int loads = reader.stateFileForTest().fullLoads();
        long generation = f.hns.stateFileForTest().generation();

        while (f.hns.stateFileForTest().generation() == generation) {
            f.hns.deleteLoadBalancer(first.id());
            first = f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0, f.pod1.id()));
        }
        HostComputeLoadBalancer last = f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.2", 80, 0,
                f.pod2.id()));

        assertThat(reader.listLoadBalancerIds()).containsExactlyInAnyOrder(first.id(), last.id());
        assertThat(reader.stateFileForTest().fullLoads()).isEqualTo(loads + 1);
    }

    @Test
    void aSnapshotWithoutALogIsReadAndTheFirstWriteStartsTheLog() throws Exception {
        EmulatorFixture f = fixture();
        HostComputeLoadBalancer lb = f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0,
                f.pod1.id()));
        // A state file as earlier versions wrote it: the whole host, no change log.
        Path older = dir.resolve("older.json");
        Files.writeString(older, HcnJson.newMapper().writeValueAsString(new EmulatorStateDocument("15.4",
                List.of(f.network), List.of(f.pod1, f.pod2, f.remote), List.of(lb))));

        HnsEmulator onOlder = HnsEmulator.builder().stateFile(older).echo(EchoProfile.VERBATIM).build();
        assertThat(onOlder.listLoadBalancers()).containsExactly(lb);
        assertThat(dir.resolve("older.json.log")).doesNotExist();
        onOlder.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.2", 80, 0, f.pod1.id()));

        assertThat(dir.resolve("older.json.log")).exists();
        assertThat(Files.readString(older)).doesNotContain("10.96.0.2");
        assertThat(HnsEmulator.openExisting(older).listLoadBalancerIds()).hasSize(2);
    }

    @Test
    void aCorruptCompleteLogLineIsReportedInOneLineNamingTheFile() throws Exception {
        EmulatorFixture f = fixture();
        Files.writeString(log, "{ not json\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);

        assertThatThrownBy(this::emulator).isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("hns.json")
                .hasMessageContaining("hns.json.log")
                .hasMessageNotContaining("\n");
        assertThat(f.hns).isNotNull();
    }

    @Test
    void aLogLineWithAnUnusableChangeIsReportedInOneLineNamingTheFile() throws Exception {
        fixture();
        Files.writeString(log, "{\"Changes\":[{\"Op\":\"SetVersion\",\"HnsVersion\":\"fifteen\"}]}\n",
                StandardCharsets.UTF_8, StandardOpenOption.APPEND);

        assertThatThrownBy(this::emulator).isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("hns.json.log: unusable SET_VERSION change")
                .hasMessageNotContaining("\n");
    }

    @Test
    void aRemovedChangeLogIsStartedAgainWithAGenerationNoProcessHasSeen() throws Exception {
        EmulatorFixture f = fixture();
        HnsEmulator other = emulator();
        HostComputeLoadBalancer first = f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0,
                f.pod1.id()));
        assertThat(other.listLoadBalancerIds()).containsExactly(first.id());
        f.hns.compactStateFile();
        f.hns.deleteLoadBalancer(first.id());
        Files.delete(log);

        HostComputeLoadBalancer second = f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.2", 80, 0,
                f.pod1.id()));

        assertThat(JSON.readTree(Files.readAllLines(log).get(0)).get("Generation").asLong()).isEqualTo(3);
        // The delete only the removed log held is lost; the other process reloads instead of reading a foreign tail.
        assertThat(other.listLoadBalancerIds()).containsExactlyInAnyOrder(first.id(), second.id());
        assertThat(other.stateFileForTest().generation()).isEqualTo(3);
    }

    @Test
    void whatAnOperationChangedBeforeItFailedIsSavedToo() {
        EmulatorFixture f = fixture();
        f.hns.faults().failNext(HnsCall.QUERY, HnsObjectKind.LOAD_BALANCER, 1, HResults.E_FAIL);

        assertThatThrownBy(() -> f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0,
                f.pod1.id()))).isInstanceOf(HnsException.class);

        assertThat(f.hns.listLoadBalancerIds()).hasSize(1);
        assertThat(emulator().listLoadBalancerIds()).hasSize(1);
    }

    @Test
    void aRemovedSnapshotIsWrittenAgainWholeOnTheNextWrite() throws Exception {
        EmulatorFixture f = fixture();
        Files.delete(file);

        f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0, f.pod1.id()));

        assertThat(JSON.readTree(Files.readString(file)).get("LoadBalancers")).hasSize(1);
        assertThat(Files.readAllLines(log)).hasSize(1);
        assertThat(emulator().listEndpointIds(f.network.id())).hasSize(3);
    }
}
