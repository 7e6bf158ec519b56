package io.winproxy.agent.kube;

import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * fabric8's CRUD mock server as an API server that authenticates: requests sent with the User-Agent
 * {@code agentUserAgent} are answered 401 Unauthorized unless they carry {@code Authorization: Bearer <the current
 * token>}; other clients (the test's own, which seeds objects) pass. Records the bearer tokens it saw. Tests only.
 */
public final class TokenCheckingDispatcher extends Dispatcher {
    private final KubernetesCrudDispatcher crud = new KubernetesCrudDispatcher();
    private final String agentUserAgent;
    private volatile String token;
    private final List<String> accepted = new CopyOnWriteArrayList<>();
    private final AtomicInteger rejected = new AtomicInteger();

    public TokenCheckingDispatcher(String agentUserAgent, String token) {
        this.agentUserAgent = agentUserAgent;
        this.token = token;
    }

    /** From now on only {@code next} is accepted (the old token has expired). */
    public void rotate(String next) {
        this.token = next;
    }

    /** The tokens of the agent's requests that were accepted, in order. */
    public List<String> accepted() {
        return accepted;
    }

    public int rejected() {
        return rejected.get();
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
        String agent = request.getHeader("User-Agent");
        if (agentUserAgent.equals(agent)) {
            String authorization = request.getHeader("Authorization");
            String expected = token;
            if (authorization == null || !authorization.equals("Bearer " + expected)) {
                rejected.incrementAndGet();
                return new MockResponse().setResponseCode(401).setHeader("Content-Type", "application/json")
                        .setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
                                + "\"reason\":\"Unauthorized\",\"message\":\"Unauthorized\",\"code\":401}");
            }
            accepted.add(expected);
        }
        return crud.dispatch(request);
    }
}
