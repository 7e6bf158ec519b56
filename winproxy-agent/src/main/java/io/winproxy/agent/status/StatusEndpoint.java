package io.winproxy.agent.status;

import io.winproxy.agent.health.HttpRequest;
import io.winproxy.agent.health.HttpResponse;
import io.winproxy.agent.health.HttpResponses;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * {@code GET /status/services} on the metrics server (loopback by default): the running agent's per-port status as
 * JSON ({@link StatusReport.Document}), read-only, computed on the sync thread between syncs. Parameters:
 * {@code service=NAMESPACE/NAME} (one Service), {@code limit=N} (ports per page, 1..1000, default 500) and
 * {@code after=NS/NAME:PORT} (the previous page's {@code next}). Nothing secret is in it: Service names, addresses,
 * HNS IDs and decoded errors. A bad parameter is answered 400 with one line naming it; a sync thread that does not get
 * to the request within 10 s, 503.
 */
public final class StatusEndpoint {
    public static final String PATH = "/status/services";
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final StatusSource source;

    public StatusEndpoint(StatusSource source) {
        this.source = source;
    }

    public HttpResponse handle(HttpRequest request) {
        if (!request.method().equals("GET") && !request.isHead()) {
            return HttpResponses.of(405, HttpResponses.TEXT, "only GET\n", Map.of("Allow", "GET, HEAD"));
        }
        String service = request.parameter("service");
        if (service != null && !StatusReport.isServiceName(service)) {
            return badRequest("service: expected NAMESPACE/NAME, got '" + service + "'");
        }
        int limit = StatusReport.DEFAULT_LIMIT;
        String limitText = request.parameter("limit");
        if (limitText != null) {
            try {
                limit = Integer.parseInt(limitText);
            } catch (NumberFormatException e) {
                limit = -1;
            }
            if (limit < 1 || limit > StatusReport.MAX_LIMIT) {
                return badRequest("limit: expected 1.." + StatusReport.MAX_LIMIT + ", got '" + limitText + "'");
            }
        }
        String after = request.parameter("after");
        int pageSize = limit;
        Optional<String> json = source.onSyncThread(view -> StatusReport.build(view, service, pageSize,
                after == null || after.isEmpty() ? null : after).json(), TIMEOUT);
        return json.map(body -> HttpResponses.of(200, HttpResponses.JSON, body, Map.of()))
                .orElseGet(() -> HttpResponses.of(503, HttpResponses.TEXT,
                        "the sync thread did not answer within " + TIMEOUT.toSeconds() + "s; try again\n", Map.of()));
    }

    private static HttpResponse badRequest(String line) {
        return HttpResponses.of(400, HttpResponses.TEXT, line + "\n", Map.of());
    }
}
