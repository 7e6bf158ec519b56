package io.winproxy.agent.kube;

import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * Wraps fabric8's CRUD dispatcher (the API server's state) and answers chosen requests with an error instead, as an
 * overloaded or mixed-version control plane does. The state survives server restarts when the same instance is
 * passed to the new server. Tests only.
 */
public final class FaultInjectingDispatcher extends Dispatcher {
    private final KubernetesCrudDispatcher crud = new KubernetesCrudDispatcher();
    private volatile Predicate<RecordedRequest> affected = r -> false;
    private volatile int status;
    private final AtomicInteger faults = new AtomicInteger();

    /** Answers requests matching {@code which} with {@code code} (e.g. 503, 404) and a Status body. */
    public void fail(Predicate<RecordedRequest> which, int code) {
        this.status = code;
        this.affected = which;
    }

    public void heal() {
        this.affected = r -> false;
    }

    public int faultsServed() {
        return faults.get();
    }

    /** Requests sent by a client with this User-Agent prefix. */
    public static Predicate<RecordedRequest> fromUserAgent(String prefix) {
        return r -> {
            String agent = r.getHeader("User-Agent");
            return agent != null && agent.startsWith(prefix);
        };
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
        if (affected.test(request)) {
            faults.incrementAndGet();
            int code = status;
            String reason = code == 404 ? "NotFound" : "ServiceUnavailable";
            return new MockResponse().setResponseCode(code).setHeader("Content-Type", "application/json")
                    .setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\""
                            + reason + "\",\"message\":\"injected " + code + "\",\"code\":" + code + "}");
        }
        return crud.dispatch(request);
    }
}
