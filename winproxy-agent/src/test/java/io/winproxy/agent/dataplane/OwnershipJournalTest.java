package io.winproxy.agent.dataplane;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OwnershipJournalTest {
    @TempDir
    Path dir;

    @Test
    void recordedObjectsSurviveARestart() {
        OwnershipJournal journal = OwnershipJournal.open(dir);
        journal.recordLoadBalancer("lb-1", "default/web:http", "10.96.0.10:80/TCP");
        journal.recordRemoteEndpoint("ep-1", "10.244.2.5");
        journal.flush();

        OwnershipJournal reopened = OwnershipJournal.open(dir);
        assertThat(reopened.ownsLoadBalancer("lb-1")).isTrue();
        assertThat(reopened.loadBalancer("lb-1")).get().extracting(OwnershipJournal.LoadBalancerEntry::service)
                .isEqualTo("default/web:http");
        assertThat(reopened.ownership().remoteEndpointIds()).containsExactly("ep-1");
    }

    @Test
    void forgottenObjectsAreNoLongerOwnedAfterFlush() {
        OwnershipJournal journal = OwnershipJournal.open(dir);
        journal.recordLoadBalancer("lb-1", "default/web:http", "10.96.0.10:80/TCP");
        journal.flush();
        journal.forgetLoadBalancer("lb-1");
        journal.flush();
        assertThat(OwnershipJournal.open(dir).ownership().loadBalancerIds()).isEmpty();
    }

    @Test
    void aCorruptJournalStartsEmptyInsteadOfFailing() throws Exception {
        Files.writeString(dir.resolve(OwnershipJournal.FILE_NAME), "{not json");
        assertThat(OwnershipJournal.open(dir).ownership().loadBalancerIds()).isEmpty();
    }

    @Test
    void flushLeavesNoTemporaryFilesAndWritesNothingWhenUnchanged() throws Exception {
        OwnershipJournal journal = OwnershipJournal.open(dir.resolve("state"));
        journal.flush();
        assertThat(dir.resolve("state")).doesNotExist();
        journal.recordRemoteEndpoint("ep-1", "10.0.0.1");
        journal.flush();
        try (var files = Files.list(dir.resolve("state"))) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly(OwnershipJournal.FILE_NAME);
        }
    }

    @Test
    void anInMemoryJournalNeverTouchesTheDisk() {
        OwnershipJournal journal = OwnershipJournal.inMemory();
        journal.recordLoadBalancer("lb-1", "a/b:c", "k");
        journal.flush();
        assertThat(journal.file()).isEmpty();
        assertThat(journal.ownsLoadBalancer("lb-1")).isTrue();
    }
}
