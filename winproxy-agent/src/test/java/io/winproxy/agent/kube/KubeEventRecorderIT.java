package io.winproxy.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.winproxy.agent.demo.EmbeddedApiServer;
import io.winproxy.agent.health.FakeClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class KubeEventRecorderIT {
    private EmbeddedApiServer server;
    private KubeEventRecorder recorder;

    @BeforeEach
    void start() {
        server = EmbeddedApiServer.start(0);
        recorder = new KubeEventRecorder(server.client(), "win-node-1");
    }

    @AfterEach
    void stop() {
        recorder.close();
        server.close();
    }

    private List<Event> events(String namespace) {
        return server.client().v1().events().inNamespace(namespace).list().getItems();
    }

    @Test
    void theStartingEventOnTheNodeLooksLikeKubeProxys() throws InterruptedException {
        recorder.event("Node", "", "win-node-1", "Normal", "Starting", "Starting kube-proxy.");
        assertThat(recorder.flush(Duration.ofSeconds(10))).isTrue();

        assertThat(events("default")).singleElement().satisfies(e -> {
            assertThat(e.getInvolvedObject().getKind()).isEqualTo("Node");
            assertThat(e.getInvolvedObject().getName()).isEqualTo("win-node-1");
            assertThat(e.getInvolvedObject().getUid()).isEqualTo("win-node-1");
            assertThat(e.getInvolvedObject().getNamespace()).isNull();
            assertThat(e.getType()).isEqualTo("Normal");
            assertThat(e.getReason()).isEqualTo("Starting");
            assertThat(e.getAction()).isEqualTo("StartKubeProxy");
            assertThat(e.getSource().getComponent()).isEqualTo("kube-proxy");
            assertThat(e.getSource().getHost()).isEqualTo("win-node-1");
            assertThat(e.getReportingComponent()).isEqualTo("kube-proxy");
            assertThat(e.getCount()).isEqualTo(1);
            assertThat(e.getFirstTimestamp()).isNotBlank();
        });
    }

    @Test
    void aServiceWarningGoesToTheServicesNamespaceWithItsUid() throws InterruptedException {
        String uid = server.client().resource(new ServiceBuilder().withNewMetadata().withNamespace("shop")
                .withName("storefront").withUid("1234-abcd").endMetadata().build()).create().getMetadata().getUid();

        recorder.event("Service", "shop", "storefront", "Warning", "FailedToStartServiceHealthcheck",
                "node win-node-1 failed to start healthcheck \"shop/storefront\" on port 32000: address in use");
        assertThat(recorder.flush(Duration.ofSeconds(10))).isTrue();

        assertThat(events("shop")).singleElement().satisfies(e -> {
            assertThat(e.getInvolvedObject().getNamespace()).isEqualTo("shop");
            assertThat(e.getInvolvedObject().getUid()).isEqualTo(uid).isNotBlank();
            assertThat(e.getType()).isEqualTo("Warning");
            assertThat(e.getMessage()).contains("port 32000");
        });
    }

    @Test
    void identicalRepeatedEventsAreAggregatedIntoACount() throws InterruptedException {
        for (int i = 0; i < 5; i++) {
            recorder.event("Service", "default", "web", "Warning", "MixedTargetPorts", "endpoints disagree");
        }
        recorder.event("Service", "default", "web", "Warning", "MixedTargetPorts", "a different message");
        assertThat(recorder.flush(Duration.ofSeconds(10))).isTrue();

        List<Event> events = events("default");
        assertThat(events).hasSize(2);
        assertThat(events).filteredOn(e -> e.getMessage().equals("endpoints disagree")).singleElement()
                .satisfies(e -> assertThat(e.getCount()).isEqualTo(5));
    }

    @Test
    void anEventRepeatedAfterTheAggregationWindowStartsANewEvent() throws InterruptedException {
        FakeClock clock = clockAtStart();
        recorder.close();
        recorder = new KubeEventRecorder(server.client(), "win-node-1", clock, 10);

        recorder.event("Node", "", "win-node-1", "Normal", "Starting", "Starting kube-proxy.");
        recorder.flush(Duration.ofSeconds(10));
        clock.step(Duration.ofMinutes(11));
        recorder.event("Node", "", "win-node-1", "Normal", "Starting", "Starting kube-proxy.");
        recorder.flush(Duration.ofSeconds(10));

        assertThat(events("default")).hasSize(2).allSatisfy(e -> assertThat(e.getCount()).isEqualTo(1));
    }

    @Test
    void theCallerIsNeverBlockedAndOverflowIsDroppedAndCounted() {
        EmbeddedApiServer gone = EmbeddedApiServer.start(0);
        String url = gone.url();
        gone.close();
        try (KubernetesClient unreachable = new KubeClientFactory().create(KubeClientSettings.forMaster(url));
             KubeEventRecorder slow = new KubeEventRecorder(unreachable, "win-node-1", Clock.systemUTC(), 2)) {
            long start = System.nanoTime();
            for (int i = 0; i < 200; i++) {
                slow.event("Service", "default", "web", "Warning", "Reason" + i, "message " + i);
            }

            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
            assertThat(slow.droppedEvents()).isGreaterThanOrEqualTo(190);
        }
    }

    @Test
    void oneObjectMayNotFloodTheApiWithDistinctEvents() throws InterruptedException {
        FakeClock clock = clockAtStart();
        recorder.close();
        recorder = new KubeEventRecorder(server.client(), "win-node-1", clock, 1000);

        for (int i = 0; i < 30; i++) {
            recorder.event("Service", "default", "noisy", "Warning", "Flapping", "message " + i);
        }
        recorder.event("Service", "default", "quiet", "Warning", "Once", "only one");
        assertThat(recorder.flush(Duration.ofSeconds(20))).isTrue();
        clock.step(Duration.ofMinutes(5));
        recorder.event("Service", "default", "noisy", "Warning", "Flapping", "after a pause");
        assertThat(recorder.flush(Duration.ofSeconds(20))).isTrue();

        assertThat(events("default")).filteredOn(e -> e.getInvolvedObject().getName().equals("noisy")).hasSize(26);
        assertThat(events("default")).filteredOn(e -> e.getInvolvedObject().getName().equals("quiet")).hasSize(1);
        assertThat(recorder.droppedEvents()).isEqualTo(5);
    }

    private static FakeClock clockAtStart() {
        return new FakeClock(Instant.parse("2026-01-15T10:00:00Z"), ZoneOffset.UTC);
    }
}
