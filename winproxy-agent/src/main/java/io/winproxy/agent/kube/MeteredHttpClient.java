package io.winproxy.agent.kube;

import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * The JDK HTTP client under fabric8, reporting every request attempt to an {@link ApiRequestListener}: the HTTP
 * status when the answer's headers arrive (101 for an accepted WebSocket upgrade, the handshake's status for a
 * refused one), or the failure when no answer comes (connection refused, timeout). This sits below fabric8's
 * interceptors, so it also sees the requests fabric8's retry and watch-reconnect logic sends, and the ones that never
 * got an answer, which a fabric8 {@code Interceptor} is not told about.
 *
 * <p>Everything else is delegated unchanged. Futures returned are the delegate's own, so cancelling them still
 * aborts the exchange. Thread-safe.
 */
final class MeteredHttpClient extends HttpClient {
    private final HttpClient delegate;
    private final ApiRequestListener listener;
    private final LongSupplier nanoTime;

    MeteredHttpClient(HttpClient delegate, ApiRequestListener listener, LongSupplier nanoTime) {
        this.delegate = delegate;
        this.listener = listener;
        this.nanoTime = nanoTime;
    }

    @Override
    public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
            throws IOException, InterruptedException {
        long start = nanoTime.getAsLong();
        try {
            HttpResponse<T> response = delegate.send(request, handler);
            report(request.method(), request.uri(), response.statusCode(), null, start);
            return response;
        } catch (IOException e) {
            report(request.method(), request.uri(), 0, e, start);
            throw e;
        }
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request,
                                                            HttpResponse.BodyHandler<T> handler) {
        long start = nanoTime.getAsLong();
        CompletableFuture<HttpResponse<T>> future = delegate.sendAsync(request, handler);
        future.whenComplete((response, failure) -> reportResponse(request, response, failure, start));
        return future;
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler,
                                                            HttpResponse.PushPromiseHandler<T> pushPromiseHandler) {
        long start = nanoTime.getAsLong();
        CompletableFuture<HttpResponse<T>> future = delegate.sendAsync(request, handler, pushPromiseHandler);
        future.whenComplete((response, failure) -> reportResponse(request, response, failure, start));
        return future;
    }

    @Override
    public WebSocket.Builder newWebSocketBuilder() {
        return new MeteredWebSocketBuilder(delegate.newWebSocketBuilder());
    }

    private void reportResponse(HttpRequest request, HttpResponse<?> response, Throwable failure, long start) {
        if (response != null) {
            report(request.method(), request.uri(), response.statusCode(), null, start);
        } else {
            report(request.method(), request.uri(), 0, unwrap(failure), start);
        }
    }

    private void report(String method, URI uri, int status, Throwable failure, long start) {
        Duration latency = Duration.ofNanos(Math.max(0, nanoTime.getAsLong() - start));
        try {
            listener.completed(new ApiRequest(method, uri, status, failure, latency, ApiRequest.isWatch(uri)));
        } catch (RuntimeException e) {
            // a listener must not break the request; the contract says it never throws
        }
    }

    static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    @Override
    public Optional<CookieHandler> cookieHandler() {
        return delegate.cookieHandler();
    }

    @Override
    public Optional<Duration> connectTimeout() {
        return delegate.connectTimeout();
    }

    @Override
    public Redirect followRedirects() {
        return delegate.followRedirects();
    }

    @Override
    public Optional<ProxySelector> proxy() {
        return delegate.proxy();
    }

    @Override
    public SSLContext sslContext() {
        return delegate.sslContext();
    }

    @Override
    public SSLParameters sslParameters() {
        return delegate.sslParameters();
    }

    @Override
    public Optional<Authenticator> authenticator() {
        return delegate.authenticator();
    }

    @Override
    public Version version() {
        return delegate.version();
    }

    @Override
    public Optional<Executor> executor() {
        return delegate.executor();
    }

    /** Reports the upgrade request of each WebSocket (fabric8's watches) as an HTTP GET. */
    private final class MeteredWebSocketBuilder implements WebSocket.Builder {
        private final WebSocket.Builder builder;

        MeteredWebSocketBuilder(WebSocket.Builder builder) {
            this.builder = builder;
        }

        @Override
        public WebSocket.Builder header(String name, String value) {
            builder.header(name, value);
            return this;
        }

        @Override
        public WebSocket.Builder connectTimeout(Duration timeout) {
            builder.connectTimeout(timeout);
            return this;
        }

        @Override
        public WebSocket.Builder subprotocols(String mostPreferred, String... lesserPreferred) {
            builder.subprotocols(mostPreferred, lesserPreferred);
            return this;
        }

        @Override
        public CompletableFuture<WebSocket> buildAsync(URI uri, WebSocket.Listener socketListener) {
            long start = nanoTime.getAsLong();
            CompletableFuture<WebSocket> future = builder.buildAsync(uri, socketListener);
            future.whenComplete((socket, failure) -> {
                if (socket != null) {
                    report("GET", uri, 101, null, start);
                    return;
                }
                Throwable cause = unwrap(failure);
                if (cause instanceof WebSocketHandshakeException handshake && handshake.getResponse() != null) {
                    report("GET", uri, handshake.getResponse().statusCode(), null, start);
                } else {
                    report("GET", uri, 0, cause, start);
                }
            });
            return future;
        }
    }
}
