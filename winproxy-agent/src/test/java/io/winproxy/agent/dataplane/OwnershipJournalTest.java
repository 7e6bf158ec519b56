package io.winproxy.agent.dataplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.agent.health.FakeClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.ZoneOffset;
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
    void anOwnedLocalEndpointIsReadBackFromTheSnapshotAlone() throws Exception {
        OwnershipJournal journal = OwnershipJournal.open(dir);
        journal.recordLocalEndpoint("77696e70-7278-4000-8000-0000000000bb", "10.244.1.3");
        journal.flush();
        Path log = dir.resolve("ownership.log");
        assertThat(!Files.exists(log) || Files.size(log) == 0).as("the first flush writes the snapshot only").isTrue();

        assertThat(OwnershipJournal.open(dir).localEndpoints()).containsOnlyKeys(
                "77696e70-7278-4000-8000-0000000000bb");
    }

    @Test
    void anOwnedLocalEndpointSurvivesARestartAndAForgetIsKept() {
        OwnershipJournal journal = OwnershipJournal.open(dir);
        journal.recordLocalEndpoint("77696E70-7278-4000-8000-0000000000AA", "");
        journal.flush();
        journal.recordLocalEndpoint("77696e70-7278-4000-8000-0000000000aa", "10.244.1.2");
        journal.flush();

        OwnershipJournal reopened = OwnershipJournal.open(dir);
        assertThat(reopened.localEndpoints()).containsOnlyKeys("77696e70-7278-4000-8000-0000000000aa");
        assertThat(reopened.localEndpoints().values()).singleElement()
                .satisfies(e -> assertThat(e.ip()).isEqualTo("10.244.1.2"));
        assertThat(reopened.ownsRemoteEndpoint("77696e70-7278-4000-8000-0000000000aa")).as("not a remote one")
                .isFalse();
        reopened.forgetLocalEndpoint("77696e70-7278-4000-8000-0000000000aa");
        reopened.flush();
        assertThat(OwnershipJournal.open(dir).localEndpoints()).isEmpty();
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
    void aSnapshotCutPartWayKeepsEveryWholeEntryBeforeTheCutAndIsRewritten() throws Exception {
        OwnershipJournal journal = OwnershipJournal.open(dir);
        journal.recordLoadBalancer("lb-1", "default/web:http", "10.96.0.10:80/TCP");
        journal.recordRemoteEndpoint("ep-1", "10.244.2.5");
        journal.recordRemoteEndpoint("ep-2", "10.244.2.6");
        journal.flush();
        Path snapshot = dir.resolve(OwnershipJournal.FILE_NAME);
        String text = Files.readString(snapshot);
        // The snapshot is read entry by entry as it streams in (issue 27: no second copy of the journal while it is
        // restored); a cut in the middle of the second endpoint loses that one only.
        Files.writeString(snapshot, text.substring(0, text.indexOf("10.244.2.6")));

        OwnershipJournal reopened = OwnershipJournal.open(dir);

        assertThat(reopened.ownsLoadBalancer("lb-1")).isTrue();
        assertThat(reopened.ownership().remoteEndpointIds()).containsExactly("ep-1");
        assertThat(Files.readString(snapshot)).as("rewritten from what was read").doesNotContain("ep-2")
                .contains("ep-1").endsWith("}");
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

    @Test
    void laterFlushesAppendToTheLogInsteadOfRewritingTheSnapshot() throws Exception {
        OwnershipJournal journal = OwnershipJournal.open(dir);
        journal.recordLoadBalancer("lb-1", "default/web:http", "10.96.0.10:80/TCP");
        journal.flush();
        String snapshot = Files.readString(dir.resolve(OwnershipJournal.FILE_NAME));
        journal.recordLoadBalancer("lb-2", new OwnershipJournal.LoadBalancerEntry("default/web:http",
                "*:30080/TCP", false, "00000000000000ff"));
        journal.forgetLoadBalancer("lb-1");
        journal.recordRemoteEndpoint("ep-1", new OwnershipJournal.RemoteEndpointEntry("10.244.2.5", "10.0.0.2",
                "02-11-0a-f4-02-05"));
        journal.flush();

        assertThat(Files.readString(dir.resolve(OwnershipJournal.FILE_NAME))).isEqualTo(snapshot);
        assertThat(Files.readAllLines(dir.resolve(OwnershipJournal.LOG_NAME))).hasSize(3);
        OwnershipJournal reopened = OwnershipJournal.open(dir);
        assertThat(reopened.ownsLoadBalancer("lb-1")).isFalse();
        assertThat(reopened.loadBalancer("lb-2")).get().extracting(OwnershipJournal.LoadBalancerEntry::fingerprint)
                .isEqualTo("00000000000000ff");
        assertThat(reopened.remoteEndpoint("ep-1")).get()
                .isEqualTo(new OwnershipJournal.RemoteEndpointEntry("10.244.2.5", "10.0.0.2", "02-11-0a-f4-02-05"));
    }

    @Test
    void aTornLastLineFromACrashIsIgnoredAndTheJournalIsRewrittenAtLoad() throws Exception {
        OwnershipJournal journal = OwnershipJournal.open(dir);
        journal.recordLoadBalancer("lb-1", "default/web:http", "10.96.0.10:80/TCP");
        journal.flush();
        journal.recordLoadBalancer("lb-2", "default/web:http", "10.96.0.11:80/TCP");
        journal.flush();
        Files.writeString(dir.resolve(OwnershipJournal.LOG_NAME), "{\"kind\":\"lb\",\"id\":\"lb-3\",\"lb\":{\"se",
                StandardOpenOption.APPEND);

        OwnershipJournal reopened = OwnershipJournal.open(dir);
        assertThat(reopened.ownership().loadBalancerIds()).containsExactlyInAnyOrder("lb-1", "lb-2");
        // Rewritten at once from what was recovered: no torn line is left for later appends to follow.
        assertThat(reopened.dirty()).isFalse();
        assertThat(dir.resolve(OwnershipJournal.LOG_NAME)).doesNotExist();
        assertThat(OwnershipJournal.open(dir).ownership().loadBalancerIds()).containsExactlyInAnyOrder("lb-1", "lb-2");
    }

    @Test
    void aLargeLogIsFoldedIntoANewSnapshot() throws Exception {
        OwnershipJournal journal = OwnershipJournal.open(dir);
        journal.recordRemoteEndpoint("ep-0", "10.0.0.0");
        journal.flush();
        for (int i = 1; i <= 5000; i++) {
            journal.recordRemoteEndpoint("ep-" + i, "10.0." + (i / 250) + "." + (i % 250));
            journal.forgetRemoteEndpoint("ep-" + (i - 1));
            journal.flush();
        }
        assertThat(Files.exists(dir.resolve(OwnershipJournal.LOG_NAME))
                ? Files.readAllLines(dir.resolve(OwnershipJournal.LOG_NAME)).size() : 0).isLessThan(4096);
        assertThat(OwnershipJournal.open(dir).ownership().remoteEndpointIds()).containsExactly("ep-5000");
    }

    @Test
    void idsAreOwnedWhateverTheirLetterCase() {
        OwnershipJournal journal = OwnershipJournal.open(dir);
        journal.recordLoadBalancer("C15A5D36-4877-41C6-B567-D36D90C7D787", "a/b:c", "10.96.0.1:80/TCP");
        journal.flush();
        OwnershipJournal reopened = OwnershipJournal.open(dir);
        assertThat(reopened.ownsLoadBalancer("c15a5d36-4877-41c6-b567-d36d90c7d787")).isTrue();
        assertThat(reopened.ownership().ownsLoadBalancer("C15A5D36-4877-41c6-B567-D36D90C7D787")).isTrue();
        reopened.forgetLoadBalancer("C15A5D36-4877-41C6-B567-D36D90C7D787");
        assertThat(reopened.ownership().loadBalancerIds()).isEmpty();
    }

    @Test
    void aJournalWrittenBeforeFingerprintsLoadsWithoutThem() throws Exception {
        Files.writeString(dir.resolve(OwnershipJournal.FILE_NAME), """
                {"version":1,
                 "loadBalancers":{"lb-1":{"service":"shop/storefront:https","key":"203.0.113.10:443/TCP"}},
                 "remoteEndpoints":{"ep-1":{"ip":"10.244.2.20"}}}
                """);
        OwnershipJournal journal = OwnershipJournal.open(dir);
        assertThat(journal.loadBalancer("lb-1")).get().extracting(OwnershipJournal.LoadBalancerEntry::fingerprint)
                .isNull();
        assertThat(journal.remoteEndpoint("ep-1")).get()
                .isEqualTo(new OwnershipJournal.RemoteEndpointEntry("10.244.2.20", "", ""));
    }

    @Test
    void vanishedObjectsAreRememberedAcrossARestartForTenMinutesAndCanBeReadoptedOrReused() {
        FakeClock clock = new FakeClock(Instant.ofEpochMilli(1_000_000), ZoneOffset.UTC);
        OwnershipJournal journal = OwnershipJournal.open(dir, clock);
        OwnershipJournal.LoadBalancerEntry web = new OwnershipJournal.LoadBalancerEntry("default/web:http",
                "10.96.0.80:80/TCP", false, "fp-1");
        journal.recordLoadBalancer("LB-1", web);
        journal.recordLoadBalancer("lb-2", "default/api:http", "10.96.0.81:80/TCP");
        journal.recordRemoteEndpoint("ep-1", "10.244.2.6");
        journal.flush();
        journal.vanishedLoadBalancer("lb-1");
        journal.vanishedLoadBalancer("lb-2");
        journal.vanishedRemoteEndpoint("EP-1");
        journal.flush();

        OwnershipJournal reopened = OwnershipJournal.open(dir, clock);
        assertThat(reopened.ownership().loadBalancerIds()).isEmpty();
        assertThat(reopened.vanished()).containsOnlyKeys("lb-1", "lb-2", "ep-1");
        assertThat(reopened.readoptLoadBalancer("Lb-1")).isTrue();
        assertThat(reopened.loadBalancer("lb-1")).contains(web);
        assertThat(reopened.reuseVanishedRemoteEndpointId("10.244.2.6")).contains("ep-1");
        assertThat(reopened.reuseVanishedRemoteEndpointId("10.244.2.6")).isEmpty();
        assertThat(reopened.readoptRemoteEndpoint("ep-1")).isFalse();
        clock.step(OwnershipJournal.VANISHED_RETENTION.plusMillis(1));
        assertThat(reopened.expireVanished()).isEqualTo(1);
        assertThat(reopened.reuseVanishedLoadBalancerId("10.96.0.81:80/TCP", false)).isEmpty();
        reopened.flush();
        assertThat(OwnershipJournal.open(dir, clock).vanished()).isEmpty();
        assertThat(OwnershipJournal.open(dir, clock).ownership().loadBalancerIds()).containsExactly("lb-1");
    }

    @Test
    void aVanishedIdIsReusedOnlyForTheSameKeyInTheSameIpFamily() {
        OwnershipJournal journal = OwnershipJournal.open(dir);
        // A VIP-less (NodePort) key does not say its family: "*:30080/TCP" exists once per family.
        journal.recordLoadBalancer("lb-v4", new OwnershipJournal.LoadBalancerEntry("default/web:http", "*:30080/TCP",
                false, "fp"));
        journal.recordLoadBalancer("lb-v6", new OwnershipJournal.LoadBalancerEntry("default/web:http", "*:30080/TCP",
                true, "fp"));
        journal.vanishedLoadBalancer("lb-v4");
        journal.vanishedLoadBalancer("lb-v6");

        assertThat(journal.reuseVanishedLoadBalancerId("*:30080/TCP", true)).contains("lb-v6");
        assertThat(journal.reuseVanishedLoadBalancerId("*:30080/TCP", true)).isEmpty();
        assertThat(journal.reuseVanishedLoadBalancerId("*:30081/TCP", false)).isEmpty();
        assertThat(journal.reuseVanishedLoadBalancerId("*:30080/TCP", false)).contains("lb-v4");
    }

    @Test
    void aTornTailLeftByAFailedAppendIsCutBeforeTheNextRecordSoNoRecordIsLost() throws Exception {
        OwnershipJournal journal = OwnershipJournal.open(dir);
        journal.recordLoadBalancer("lb-1", "default/web:http", "10.96.0.80:80/TCP");
        journal.flush();
        journal.recordLoadBalancer("lb-2", "default/web:http", "10.96.0.81:80/TCP");
        journal.flush();
        // What a write that failed part-way (a full disk) leaves when it could not be cut back at once.
        java.nio.file.Path log = dir.resolve(OwnershipJournal.LOG_NAME);
        Files.writeString(log, "{\"kind\":\"lb\",\"id\":\"lb-9\",\"lb\":{\"se", StandardOpenOption.APPEND);

        journal.recordLoadBalancer("lb-3", "default/web:http", "10.96.0.82:80/TCP");
        journal.flush();

        assertThat(Files.readString(log)).doesNotContain("lb-9").endsWith("\n");
        OwnershipJournal reopened = OwnershipJournal.open(dir);
        assertThat(reopened.ownership().loadBalancerIds()).containsExactlyInAnyOrder("lb-1", "lb-2", "lb-3");
        assertThat(Files.readString(log)).as("nothing was damaged, so nothing was rewritten").contains("lb-3");
    }

    /** The journal's views at {@code ip} are those of all its views that hold it, in the same order. */
    private static void assertViewsByIpAgree(OwnershipJournal journal, int ips) {
        for (int n = 0; n < ips; n++) {
            String ip = "10.244.2." + n;
            assertThat(journal.remoteEndpointViewsAt(ip)).as("at %s", ip).containsExactlyElementsOf(
                    journal.remoteEndpointViews().stream().filter(v -> v.ips().contains(ip)).toList());
        }
    }

    @Test
    void theViewsByIpFollowEveryRecordForgetVanishAndReadoptAndARestartFromSnapshotAndLog() {
        java.util.Random random = new java.util.Random(11);
        OwnershipJournal journal = OwnershipJournal.open(dir);
        for (int round = 0; round < 600; round++) {
            String id = "77696e70-7278-4000-8000-0000000000" + String.format("%02x", random.nextInt(40));
            String ip = "10.244.2." + random.nextInt(12);
            switch (random.nextInt(6)) {
                case 0, 1 -> journal.recordRemoteEndpoint(id, ip);
                case 2 -> journal.recordRemoteEndpoint(id.toUpperCase(java.util.Locale.ROOT),
                        new OwnershipJournal.RemoteEndpointEntry(ip, "192.168.1." + random.nextInt(3), null));
                case 3 -> journal.forgetRemoteEndpoint(id);
                case 4 -> journal.vanishedRemoteEndpoint(id);
                default -> journal.readoptRemoteEndpoint(id);
            }
            if (round % 97 == 0) {
                journal.flush();
                assertViewsByIpAgree(OwnershipJournal.open(dir), 12);
            }
            assertViewsByIpAgree(journal, 12);
        }
        assertThat(journal.remoteEndpointCount()).as("a test with something in it").isGreaterThan(5);
        journal.flush();
        OwnershipJournal reopened = OwnershipJournal.open(dir);
        assertThat(reopened.remoteEndpoints()).isEqualTo(journal.remoteEndpoints());
        assertViewsByIpAgree(reopened, 12);
        assertThat(reopened.remoteEndpointViewsAt("10.0.0.1")).isEmpty();
    }
}
