package io.winproxy.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A control plane answering 404 to every list and watch (a mixed-version upgrade, issue 17 item 8): the watches are
 * cut, the relists fail, and nothing is delivered as deleted on their word. A Service really deleted during the
 * window is delivered as deleted only once the API server answers again.
 */
class NotFoundWindowIT {
    private static final String AGENT = "winproxy-404-it";
    private static final Duration TIMEOUT = WatchedApiServer.TIMEOUT;

    private WatchedApiServer api;
    private FaultInjectingDispatcher dispatcher;
    private RecordingHandler handler;

    @BeforeEach
    void start() throws Exception {
        api = new WatchedApiServer(AGENT, List.of(WatchedApiServer.service("kept", "10.96.0.10"),
                WatchedApiServer.service("deleted", "10.96.0.11")));
        dispatcher = api.dispatcher;
        handler = api.handler;
    }

    @AfterEach
    void stop() throws Exception {
        api.close();
    }

    @Test
    void relistsAnswered404DeliverNoDeletionAndARealDeletionArrivesAfterRecovery() throws Exception {
        dispatcher.fail(FaultInjectingDispatcher.fromUserAgent(AGENT), 404);
        api.proxy.dropConnections();
        Eventually.await(TIMEOUT, "404 answers", () -> dispatcher.faultsServed() >= 3);
        api.server.client().services().inNamespace("default").withName("deleted").delete();
        Thread.sleep(6000);
        assertThat(handler.calls()).as("deletions during the 404 window").noneMatch(RecordingHandler.Call::isDelete);

        dispatcher.heal();
        Eventually.await(TIMEOUT, "the deletion made during the window",
                () -> handler.has(c -> c.isDelete() && c.name().equals("default/deleted")));
        assertThat(handler.calls()).filteredOn(RecordingHandler.Call::isDelete)
                .extracting(RecordingHandler.Call::name).containsExactly("default/deleted");
    }
}
