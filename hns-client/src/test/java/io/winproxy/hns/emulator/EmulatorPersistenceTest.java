package io.winproxy.hns.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Two emulators on one state file behave as one emulated host. */
class EmulatorPersistenceTest {
    @TempDir
    Path dir;

    @Test
    void objectsCreatedThroughOneEmulatorAreSeenAndDeletableThroughAnother() {
        Path file = dir.resolve("hns.json");
        EmulatorFixture f = new EmulatorFixture(HnsEmulator.builder().stateFile(file).echo(EchoProfile.VERBATIM)
                .build());
        HostComputeLoadBalancer lb = f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0,
                f.pod1.id()));

        HnsEmulator other = HnsEmulator.builder().stateFile(file).echo(EchoProfile.VERBATIM).build();

        assertThat(other.listLoadBalancers()).containsExactly(lb);
        assertThat(other.getNetworkByName("winproxy-overlay")).contains(f.network);
        other.deleteLoadBalancer(lb.id());
        assertThat(f.hns.listLoadBalancerIds()).isEmpty();
        // Rules see the shared state too: the remote endpoint is free to go now.
        f.hns.deleteEndpoint(f.remote.id());
        assertThat(other.getEndpoint(f.remote.id())).isEmpty();
    }

    @Test
    void theVersionIsSharedThroughTheFileUnlessConfiguredExplicitly() {
        Path file = dir.resolve("hns.json");
        HnsEmulator first = HnsEmulator.builder().stateFile(file).version(HnsVersion.WINDOWS_SERVER_2019).build();

        assertThat(HnsEmulator.builder().stateFile(file).build().version()).isEqualTo(HnsVersion.WINDOWS_SERVER_2019);
        HnsVersion withModify = new HnsVersion(15, 5);
        HnsEmulator upgraded = HnsEmulator.builder().stateFile(file).version(withModify).build();
        assertThat(first.capabilities().modifyLoadBalancer()).isTrue();
        assertThat(upgraded.version()).isEqualTo(withModify);
    }

    @Test
    void theSnapshotAndChangeLogAreTheOnlyFilesBesideTheLockAndNoTemporaryFilesAreLeft() throws Exception {
        Path file = dir.resolve("state").resolve("hns.json");
        EmulatorFixture f = new EmulatorFixture(HnsEmulator.builder().stateFile(file).build());
        f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0, f.pod1.id()));

        try (var files = Files.list(file.getParent())) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder("hns.json", "hns.json.lock", "hns.json.log");
        }
        assertThat(Files.readString(file)).contains("\"HnsVersion\" : \"15.4\"");
        assertThat(Files.readString(dir.resolve("state").resolve("hns.json.log")))
                .contains("\"Op\":\"PutLoadBalancer\"");
    }

    @Test
    void concurrentWritersThroughTwoEmulatorsLoseNoUpdates() throws Exception {
        Path file = dir.resolve("hns.json");
        EmulatorFixture f = new EmulatorFixture(HnsEmulator.builder().stateFile(file).build());
        HnsEmulator other = HnsEmulator.builder().stateFile(file).build();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                int port = 1000 + i;
                HnsEmulator target = i % 2 == 0 ? f.hns : other;
                done.add(pool.submit(() -> target.createLoadBalancer(
                        EmulatorFixture.clusterIp("10.96.0.1", port, 0, f.pod1.id()))));
            }
            for (Future<?> d : done) {
                d.get();
            }
        } finally {
            pool.shutdownNow();
        }

        assertThat(other.listLoadBalancerIds()).hasSize(20);
    }

    /** A state file that is not JSON, or whose member is bad: one line naming the file (and the member). */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "{ not json                  | hns.json",
        "{\"HnsVersion\":\"fifteen\"}  | HnsVersion: not an HNS version"})
    void aBadStateFileIsReportedInOneLineNamingTheFile(String content, String named) throws Exception {
        Path file = dir.resolve("hns.json");
        Files.writeString(file, content);

        assertThatThrownBy(() -> HnsEmulator.builder().stateFile(file).build())
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining(file.getFileName().toString())
                .hasMessageContaining(named)
                .hasMessageNotContaining("\n");
    }

    @Test
    void openingAMissingStateFileForReadingIsRefusedWithoutCreatingIt() {
        Path file = dir.resolve("missing.json");

        assertThatThrownBy(() -> HnsEmulator.openExisting(file)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("emulated HNS state file " + file + " does not exist");
        assertThat(file).doesNotExist();
    }

    @Test
    void aFailedOperationDoesNotChangeTheFile() throws Exception {
        Path file = dir.resolve("hns.json");
        EmulatorFixture f = new EmulatorFixture(HnsEmulator.builder().stateFile(file).build());
        String before = Files.readString(file);

        assertThatThrownBy(() -> f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0)))
                .isInstanceOfSatisfying(HnsException.class,
                        e -> assertThat(e.hresult()).isEqualTo(HResults.HCN_E_INVALID_JSON_REFERENCE));
        assertThat(Files.readString(file)).isEqualTo(before);
    }
}
