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
    private final Reporter reporter;

    MeteredHttpClient(HttpClient delegate, ApiRequestListener listener, LongSupplier nanoTime) {
        this.delegate = delegate;
        this.reporter = new Reporter(listener, nanoTime);
    }

    @Override
    public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
            throws IOException, InterruptedException {
        long start = reporter.now();
        try {
            HttpResponse<T> response = delegate.send(request, handler);
            reporter.report(request.method(), request.uri(), response.statusCode(), null, start);
            return response;
        } catch (IOException e) {
            reporter.report(request.method(), request.uri(), 0, e, start);
            throw e;
        }
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request,
                                                            HttpResponse.BodyHandler<T> handler) {
        return reported(request, reporter.now(), delegate.sendAsync(request, handler));
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler,
                                                            HttpResponse.PushPromiseHandler<T> pushPromiseHandler) {
        return reported(request, reporter.now(), delegate.sendAsync(request, handler, pushPromiseHandler));
    }

    @Override
    public WebSocket.Builder newWebSocketBuilder() {
        return new MeteredWebSocketBuilder(delegate.newWebSocketBuilder());
    }

    /** Reports the attempt started at {@code start} when {@code future} completes; returns {@code future} itself. */
    private <T> CompletableFuture<HttpResponse<T>> reported(HttpRequest request, long start,
                                                            CompletableFuture<HttpResponse<T>> future) {
        future.whenComplete((response, failure) -> {
            if (response != null) {
                reporter.report(request.method(), request.uri(), response.statusCode(), null, start);
            } else {
                reporter.report(request.method(), request.uri(), 0, unwrap(failure), start);
            }
        });
        return future;
    }

    /** Times the attempts and hands each outcome to the listener, which can never break the request. */
    private record Reporter(ApiRequestListener listener, LongSupplier nanoTime) {
        long now() {
            return nanoTime.getAsLong();
        }

        void report(String method, URI uri, int status, Throwable failure, long start) {
            Duration latency = Duration.ofNanos(Math.max(0, nanoTime.getAsLong() - start));
            try {
                listener.completed(new ApiRequest(method, uri, status, failure, latency, ApiRequest.isWatch(uri)));
            } catch (RuntimeException e) {
                // a listener must not break the request; the contract says it never throws
            }
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
            long start = reporter.now();
            CompletableFuture<WebSocket> future = builder.buildAsync(uri, socketListener);
            future.whenComplete((socket, failure) -> {
                if (socket != null) {
                    reporter.report("GET", uri, 101, null, start);
                    return;
                }
                Throwable cause = unwrap(failure);
                if (cause instanceof WebSocketHandshakeException handshake && handshake.getResponse() != null) {
                    reporter.report("GET", uri, handshake.getResponse().statusCode(), null, start);
                } else {
                    reporter.report("GET", uri, 0, cause, start);
                }
            });
            return future;
        }
    }
}
