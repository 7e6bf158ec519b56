package io.winproxy.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The watcher through an API server outage: a loopback TCP proxy in front of fabric8's CRUD mock server is stopped
 * (connection refused) or its connections are cut while the server answers 503 (a control plane being upgraded).
 * Counts winproxy's own log lines (loggers under {@code io.winproxy}) at INFO and above; fabric8's are not counted.
 */
class ApiOutageIT {
    private static final String AGENT = "winproxy-outage-it";
    private static final Duration TIMEOUT = WatchedApiServer.TIMEOUT;

    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger winproxyLogger = (Logger) LoggerFactory.getLogger("io.winproxy");
    private WatchedApiServer api;
    private FaultInjectingDispatcher dispatcher;
    private RecordingHandler handler;
    private LoopbackTcpProxy proxy;

    @BeforeEach
    void start() throws Exception {
        api = new WatchedApiServer(AGENT, List.of(WatchedApiServer.service("before", "10.96.0.10")));
        dispatcher = api.dispatcher;
        handler = api.handler;
        proxy = api.proxy;
        log.start();
        winproxyLogger.addAppender(log);
    }

    @AfterEach
    void stop() throws Exception {
        winproxyLogger.detachAppender(log);
        api.close();
    }

    @Test
    void aFifteenSecondOutageIsTwoLinesAndAChangeMadeDuringItArrivesSecondsAfterRecovery() throws Exception {
        proxy.stop();
        Thread.sleep(2000);
        api.server.client().resource(WatchedApiServer.service("during", "10.96.0.11")).create();
        Thread.sleep(13_000);
        assertThat(handler.has(c -> c.name().equals("default/during"))).isFalse();

        proxy.start();
        Duration lag = lagUntilDelivered("the Service created during the outage");

        List<String> lines = twoLinesAfterRecovery();
        assertThat(lines.get(0)).startsWith("WARN Cannot reach the API server; Services and EndpointSlices are"
                + " served from the last known state server=\"" + proxy.url() + "/\" err=\"connection refused");
        assertThat(lines.get(1)).startsWith("INFO The API server answers again; relisting now server=\""
                + proxy.url() + "/\" unavailableFor=\"")
                .endsWith("relisting=[\"Services\",\"EndpointSlices\",\"Node win-node-1\"]");
        // The outage lasted 15 s; the monitor sees the recovery at its next probe, 4 to 6 s after the last one
        // (ApiServerMonitor.PROBE_INTERVAL, 5 s +-20%, on a 0.5 s tick): 15 to about 21.5 s, a little less when
        // the informers noticed the cut late, and up to 2 s more on a loaded machine. The lag: the probe (up to
        // 6.5 s) and the relist, with 4.5 s for the relist on a loaded machine: still far from fabric8's 30 s.
        java.util.regex.Matcher reported = java.util.regex.Pattern.compile("unavailableFor=\"(\\d+)s\"")
                .matcher(lines.get(1));
        assertThat(reported.find()).as("unavailableFor in whole seconds: " + lines.get(1)).isTrue();
        assertThat(Integer.parseInt(reported.group(1))).isBetween(13, 24);
        assertThat(lag).as("not waiting out fabric8's backoff (up to 30 s)").isLessThan(Duration.ofSeconds(11));
        assertThat(handler.calls()).noneMatch(RecordingHandler.Call::isDelete);
    }

    @Test
    void aControlPlaneAnswering503AfterCuttingTheWatchesIsOneLineNamingTheAnswerAndOneOnRecovery()
            throws Exception {
        dispatcher.fail(FaultInjectingDispatcher.fromUserAgent(AGENT), 503);
        proxy.dropConnections();
        Eventually.await(TIMEOUT, "503 answers", () -> dispatcher.faultsServed() >= 3);
        api.server.client().resource(WatchedApiServer.service("during", "10.96.0.11")).create();
        Thread.sleep(8000);

        dispatcher.heal();
        Duration lag = lagUntilDelivered("the Service created during the 503 window");

        List<String> lines = twoLinesAfterRecovery();
        assertThat(lines.get(0)).startsWith("WARN The API server answers with an error;")
                .contains(" server=\"" + proxy.url() + "/\" answer=\"503");
        assertThat(lines.get(1)).startsWith("INFO The API server answers again; relisting now server=\""
                + proxy.url() + "/\"");
        assertThat(lag).isLessThan(Duration.ofSeconds(11));
        assertThat(handler.calls()).noneMatch(RecordingHandler.Call::isDelete);
    }

    /** How long, from now, until the Service default/during is delivered. */
    private Duration lagUntilDelivered(String what) {
        long from = System.nanoTime();
        Eventually.await(TIMEOUT, what, () -> handler.has(c -> c.name().equals("default/during")));
        return Duration.ofNanos(System.nanoTime() - from);
    }

    /**
     * winproxy's lines, checked to be exactly two: the outage line and the recovery line, which follows the monitor's
     * next probe (about 5 s); then 2 s more in which no further line may come.
     */
    private List<String> twoLinesAfterRecovery() throws InterruptedException {
        Eventually.await(TIMEOUT, "the recovery line", () -> lines().size() >= 2);
        Thread.sleep(2000);
        List<String> lines = lines();
        assertThat(lines).as("winproxy's lines: %s", lines).hasSize(2);
        return lines;
    }

    private List<String> lines() {
        return log.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.INFO))
                .map(e -> e.getLevel() + " " + e.getFormattedMessage() + KlogValuesForTests.keyValues(e)).toList();
    }
}
