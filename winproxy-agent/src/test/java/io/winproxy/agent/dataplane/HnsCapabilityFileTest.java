package io.winproxy.agent.dataplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HnsCapabilityFileTest {
    @TempDir
    Path dir;

    @Test
    void whatWasWrittenIsReadBackWithItsProbes() throws Exception {
        HnsCapabilityFile learnt = HnsCapabilityFile.NONE
                .withProbe("idChoice", "honoured")
                .withProbe("openUnknownId", "0x803B0008 HCN_E_POLICY_NOT_FOUND")
                .withMaxBackends(64, "winproxy check --probe-hns", Instant.parse("2026-11-28T02:00:00Z"));
        HnsCapabilityFile.write(dir, learnt);

        HnsCapabilityFile read = HnsCapabilityFile.read(dir).orElseThrow();
        assertThat(read.maxBackendsPerLoadBalancer()).isEqualTo(64);
        assertThat(read.source()).isEqualTo("winproxy check --probe-hns");
        assertThat(read.learntAt()).isEqualTo("2026-11-28T02:00:00Z");
        assertThat(read.probes()).containsExactly(Map.entry("idChoice", "honoured"),
                Map.entry("openUnknownId", "0x803B0008 HCN_E_POLICY_NOT_FOUND"));
        assertThat(read).isEqualTo(learnt);
    }

    @Test
    void anUnknownLimitIsKeptAsAbsentAndReadAsNull() throws Exception {
        HnsCapabilityFile.write(dir, HnsCapabilityFile.NONE.withProbe("dsr", "accepted"));
        assertThat(Files.readString(HnsCapabilityFile.file(dir))).doesNotContain("maxBackendsPerLoadBalancer");
        assertThat(HnsCapabilityFile.read(dir).orElseThrow().maxBackendsPerLoadBalancer()).isNull();
    }

    @Test
    void aMissingOrCorruptFileReadsAsNothingLearnt() throws Exception {
        assertThat(HnsCapabilityFile.read(dir)).isEmpty();
        assertThat(HnsCapabilityFile.read(null)).isEmpty();
        Files.writeString(HnsCapabilityFile.file(dir), "{\"maxBackendsPerLoadBalancer\": \"many\"");
        assertThat(HnsCapabilityFile.read(dir)).isEmpty();
        Files.writeString(HnsCapabilityFile.file(dir), "{\"maxBackendsPerLoadBalancer\": 0}");
        assertThat(HnsCapabilityFile.read(dir)).isEmpty();
    }

    @Test
    void aRewriteReplacesTheFileAndLeavesNoTemporaryFile() throws Exception {
        HnsCapabilityFile.write(dir, HnsCapabilityFile.NONE.withMaxBackends(64, "create failure", Instant.EPOCH));
        HnsCapabilityFile.write(dir, HnsCapabilityFile.NONE.withMaxBackends(1024, "configured", Instant.EPOCH));
        assertThat(HnsCapabilityFile.read(dir).orElseThrow().maxBackendsPerLoadBalancer()).isEqualTo(1024);
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly(HnsCapabilityFile.FILE_NAME);
        }
    }

    @Test
    void theFileIsReadableByItsOwnerOnly() throws Exception {
        assumeTrue(Files.getFileAttributeView(dir, PosixFileAttributeView.class) != null, "POSIX file modes");
        HnsCapabilityFile.write(dir, HnsCapabilityFile.NONE.withProbe("modify", "honoured"));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(HnsCapabilityFile.file(dir))))
                .isEqualTo("rw-------");
    }

    @Test
    void aNonPositiveLimitIsRefused() {
        assertThatThrownBy(() -> new HnsCapabilityFile(0, "configured", null, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxBackendsPerLoadBalancer");
    }
}
