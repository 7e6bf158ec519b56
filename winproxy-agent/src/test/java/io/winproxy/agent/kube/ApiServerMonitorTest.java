package io.winproxy.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import io.winproxy.agent.health.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class ApiServerMonitorTest {
    private static final String SERVER = "https://10.0.0.1:6443/";

    private final FakeClock clock = new FakeClock(Instant.parse("2024-05-01T10:00:00Z"), ZoneOffset.UTC);
    private final FakeTarget services = new FakeTarget("Services");
    private final FakeTarget slices = new FakeTarget("EndpointSlices");
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger logger = (Logger) LoggerFactory.getLogger(ApiServerMonitor.class);
    private ApiServerMonitor monitor;

    @BeforeEach
    void setUp() {
        log.start();
        logger.addAppender(log);
        monitor = new ApiServerMonitor(SERVER,
                new ApiServerMonitor.Pacing(clock, Duration.ofSeconds(5), Duration.ofMinutes(1), () -> 0.5));
        monitor.register(services);
        monitor.register(slices);
    }

    @AfterEach
    void tearDown() {
        logger.detachAppender(log);
    }

    @Test
    void anOutageIsOneLineAReminderAMinuteAndOneLineWhenItEndsFollowedByARelist() {
        for (int i = 0; i < 50; i++) {
            monitor.completed(new ApiRequest("GET", URI.create(SERVER + "api/v1/services?watch=true"), 0,
                    new ConnectException("Connection refused"), Duration.ofMillis(1), true));
            monitor.informerFailed("EndpointSlices", new KubernetesClientException("boom", new ConnectException()));
        }
        assertThat(monitor.inOutage()).isTrue();
        services.failing = true;
        for (int s = 0; s < 75; s++) {
            clock.step(Duration.ofSeconds(1));
            monitor.tick();
        }
        assertThat(services.probes).as("one probe every 5 s").isBetween(14, 16);
        services.failing = false;
        clock.step(Duration.ofSeconds(5));
        monitor.tick();

        assertThat(lines()).containsExactly(
                "WARN Cannot reach the API server; Services and EndpointSlices are served from the last known state"
                        + " server=\"https://10.0.0.1:6443/\" err=\"connection refused (GET /api/v1/services)\"",
                "WARN The API server is still unavailable; Services and EndpointSlices are served from the last known"
                        + " state server=\"https://10.0.0.1:6443/\" unavailableFor=\"1m00s\""
                        + " err=\"connection refused (listing Services)\"",
                "INFO The API server answers again; relisting now server=\"https://10.0.0.1:6443/\""
                        + " unavailableFor=\"1m20s\" relisting=[\"Services\",\"EndpointSlices\"]");
        assertThat(monitor.inOutage()).isFalse();
        assertThat(services.relists).isEqualTo(1);
        assertThat(slices.relists).isEqualTo(1);
    }

    @Test
    void aFailingApiOfAMixedVersionControlPlaneKeepsTheOutageUntilEveryKindListsAgain() {
        monitor.informerFailed("EndpointSlices", new KubernetesClientException(new StatusBuilder().withCode(404)
                .withReason("NotFound").build()));
        slices.failing = true;
        for (int s = 0; s < 30; s++) {
            clock.step(Duration.ofSeconds(1));
            monitor.tick();
        }
        assertThat(monitor.inOutage()).isTrue();
        assertThat(services.relists).isZero();
        slices.failing = false;
        clock.step(Duration.ofSeconds(6));
        monitor.tick();

        assertThat(lines()).hasSize(2);
        assertThat(lines().get(0)).isEqualTo("WARN The API server answers with an error; Services and EndpointSlices"
                + " are served from the last known state server=\"https://10.0.0.1:6443/\""
                + " answer=\"404 (NotFound) (listing/watching EndpointSlices)\"");
        assertThat(lines().get(1)).startsWith("INFO The API server answers again; relisting now"
                + " server=\"https://10.0.0.1:6443/\" unavailableFor=\"36s\"");
    }

    @Test
    void successfulRequests4xxAnswersOtherThanAWatch404AndWritesThatFailDoNotStartAnOutage() {
        monitor.completed(new ApiRequest("GET", URI.create(SERVER + "api/v1/services"), 200, null, Duration.ZERO,
                false));
        monitor.completed(new ApiRequest("GET", URI.create(SERVER + "api/v1/namespaces/a/services/b"), 404, null,
                Duration.ZERO, false));
        monitor.completed(new ApiRequest("POST", URI.create(SERVER + "api/v1/namespaces/a/events"), 403, null,
                Duration.ZERO, false));
        // An admission webhook failing Event writes is no API outage (no relist storm).
        monitor.completed(new ApiRequest("POST", URI.create(SERVER + "api/v1/namespaces/a/events"), 500, null,
                Duration.ZERO, false));
        monitor.completed(new ApiRequest("POST", URI.create(SERVER + "api/v1/namespaces/a/events"), 0,
                new java.io.IOException("timeout"), Duration.ZERO, false));

        assertThat(monitor.inOutage()).isFalse();
        assertThat(lines()).isEmpty();

        monitor.completed(new ApiRequest("GET", URI.create(SERVER + "api/v1/services?watch=true"), 503, null,
                Duration.ZERO, true));
        assertThat(lines()).containsExactly("WARN The API server answers with an error; Services and EndpointSlices"
                + " are served from the last known state server=\"https://10.0.0.1:6443/\""
                + " answer=\"503 to GET /api/v1/services\"");
    }

    @Test
    void aReadAnswered500StartsAnOutageAsEvery5xxDoesButA499DoesNot() {
        monitor.completed(new ApiRequest("GET", URI.create(SERVER + "api/v1/services"), 499, null, Duration.ZERO,
                false));
        assertThat(monitor.inOutage()).isFalse();
        monitor.completed(new ApiRequest("GET", URI.create(SERVER + "api/v1/services"), 500, null, Duration.ZERO,
                false));
        assertThat(monitor.inOutage()).isTrue();
        assertThat(lines()).containsExactly("WARN The API server answers with an error; Services and EndpointSlices "
                + "are served from the last known state server=\"https://10.0.0.1:6443/\" answer=\"500 to GET "
                + "/api/v1/services\"");
    }

    @Test
    void failuresAreDescribedInAFewWords() {
        assertThat(ApiServerMonitor.describe(new KubernetesClientException("x", new ConnectException("refused"))))
                .isEqualTo("connection refused");
        assertThat(ApiServerMonitor.describe(new HttpTimeoutException("request timed out"))).isEqualTo("timed out");
        assertThat(ApiServerMonitor.describe(new KubernetesClientException("Failure executing: GET", 503,
                new StatusBuilder().withCode(503).withReason("ServiceUnavailable").build())))
                .isEqualTo("answers 503 (ServiceUnavailable)");
        assertThat(ApiServerMonitor.describe(new IllegalStateException("first\nsecond"))).isEqualTo("first");
        assertThat(ApiServerMonitor.format(Duration.ofSeconds(3725))).isEqualTo("1h02m05s");
    }

    private List<String> lines() {
        List<String> lines = new ArrayList<>();
        for (ILoggingEvent e : log.list) {
            lines.add(e.getLevel() + " " + e.getFormattedMessage() + KlogValuesForTests.keyValues(e));
        }
        return lines;
    }

    private static final class FakeTarget implements ApiServerMonitor.Target {
        private final String kind;
        volatile boolean failing;
        int probes;
        int relists;

        FakeTarget(String kind) {
            this.kind = kind;
        }

        @Override
        public String kind() {
            return kind;
        }

        @Override
        public void probe() {
            probes++;
            if (failing) {
                throw new KubernetesClientException("x", new ConnectException("Connection refused"));
            }
        }

        @Override
        public void relist() {
            relists++;
        }
    }
}
