package io.winproxy.agent.status;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Asks a running agent for its status over loopback ({@code GET /status/services} on its metrics server), page by
 * page. Empty when no agent answers (nothing listens, a timeout, or an answer that is not the status document).
 */
public final class AgentStatusClient {
    private static final Duration TIMEOUT = Duration.ofSeconds(15);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private String problem = "";

    /** Why the last {@link #fetch} came back empty, one phrase ("none answered at ...", "... answered 503"). */
    public String problem() {
        return problem;
    }

    /**
     * The loopback address to ask for an agent whose {@code metricsBindAddress} is {@code bind} ("0.0.0.0:10249" is
     * asked on 127.0.0.1); empty when the metrics server is disabled (an empty address).
     */
    public static Optional<String> loopbackOf(String bind) {
        if (bind == null || bind.isBlank()) {
            return Optional.empty();
        }
        int colon = bind.lastIndexOf(':');
        String host = colon < 0 ? bind : bind.substring(0, colon);
        String port = colon < 0 ? "10249" : bind.substring(colon + 1);
        if (host.isEmpty() || host.equals("0.0.0.0")) {
            host = "127.0.0.1";
        } else if (host.equals("[::]") || host.equals("::")) {
            host = "[::1]";
        }
        return Optional.of(host + ":" + port);
    }

    /**
     * The agent's status of {@code service} (or of every Service), all pages joined.
     *
     * @param address "host:port" of the agent's metrics server
     */
    public Optional<StatusReport.Document> fetch(String address, String service) {
        List<ServicePortStatus> ports = new ArrayList<>();
        StatusReport.Document page = null;
        String after = null;
        do {
            StringBuilder uri = new StringBuilder("http://").append(address).append(StatusEndpoint.PATH)
                    .append("?limit=").append(StatusReport.MAX_LIMIT);
            if (service != null) {
                uri.append("&service=").append(URLEncoder.encode(service, StandardCharsets.UTF_8));
            }
            if (after != null) {
                uri.append("&after=").append(URLEncoder.encode(after, StandardCharsets.UTF_8));
            }
            try {
                HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create(uri.toString()))
                        .timeout(TIMEOUT).GET().build(), HttpResponse.BodyHandlers.ofString());
                if (answer.statusCode() != 200) {
                    problem = "the agent at " + address + " answered " + answer.statusCode()
                            + (answer.statusCode() == 503 ? " (its sync thread is busy)" : "");
                    return Optional.empty();
                }
                page = StatusReport.Document.parse(answer.body());
            } catch (IOException | RuntimeException e) {
                problem = "none answered at " + address;
                return Optional.empty();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                problem = "interrupted";
                return Optional.empty();
            }
            ports.addAll(page.servicePorts());
            after = page.next();
        } while (after != null);
        return Optional.of(new StatusReport.Document(page.source(), "the running agent at " + address, page.node(),
                page.generatedAt(), page.synced(), ports, null));
    }
}
