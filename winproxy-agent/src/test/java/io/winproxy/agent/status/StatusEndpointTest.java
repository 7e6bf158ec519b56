package io.winproxy.agent.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.agent.dataplane.OwnershipJournal;
import io.winproxy.agent.health.HttpRequest;
import io.winproxy.agent.health.HttpResponse;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.tracking.ProxyState;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** {@code GET /status/services}: parameters checked in one line, answered from the sync thread or 503. */
class StatusEndpointTest {
    private final List<String> asked = new ArrayList<>();

    private final StatusSource source = new StatusSource() {
        @Override
        public <T> Optional<T> onSyncThread(Function<SyncView, T> read, Duration timeout) {
            asked.add("read");
            return Optional.of(read.apply(new SyncView(SyncView.AGENT, "win-a", true, new ProxyState(), null,
                    List.of(IpFamily.IPV4), OwnershipJournal.inMemory(), List.of(), new ProgrammingBook(), null,
                    Instant.parse("2026-11-28T02:40:00Z"))));
        }
    };

    private static String body(HttpResponse r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    @Test
    void theDocumentOfTheRunningAgentIsServedAsJson() {
        HttpResponse r = new StatusEndpoint(source).handle(new HttpRequest("GET", StatusEndpoint.PATH, "",
                "service=default/web&limit=10"));
        assertThat(r.status()).isEqualTo(200);
        StatusReport.Document doc = StatusReport.Document.parse(body(r));
        assertThat(doc.source()).isEqualTo("agent");
        assertThat(doc.node()).isEqualTo("win-a");
        assertThat(doc.servicePorts()).isEmpty();
    }

    @Test
    void aBadParameterIsRefusedInOneLineNamingIt() {
        StatusEndpoint endpoint = new StatusEndpoint(source);
        HttpResponse badService = endpoint.handle(new HttpRequest("GET", StatusEndpoint.PATH, "", "service=web"));
        assertThat(badService.status()).isEqualTo(400);
        assertThat(body(badService)).isEqualTo("service: expected NAMESPACE/NAME, got 'web'\n");
        HttpResponse badLimit = endpoint.handle(new HttpRequest("GET", StatusEndpoint.PATH, "", "limit=5000"));
        assertThat(badLimit.status()).isEqualTo(400);
        assertThat(body(badLimit)).startsWith("limit: expected 1..1000");
        assertThat(endpoint.handle(new HttpRequest("POST", StatusEndpoint.PATH, "", "")).status()).isEqualTo(405);
        assertThat(asked).isEmpty();
    }

    @Test
    void aSyncThreadThatDoesNotAnswerGives503() {
        StatusSource busy = new StatusSource() {
            @Override
            public <T> Optional<T> onSyncThread(Function<SyncView, T> read, Duration timeout) {
                return Optional.empty();
            }
        };
        assertThat(new StatusEndpoint(busy).handle(new HttpRequest("GET", StatusEndpoint.PATH)).status())
                .isEqualTo(503);
    }
}
