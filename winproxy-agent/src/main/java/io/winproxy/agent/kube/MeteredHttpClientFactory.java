package io.winproxy.agent.kube;

import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import java.net.http.HttpClient;
import java.net.http.HttpClient.Redirect;
import java.net.http.HttpClient.Version;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * fabric8's JDK HTTP client factory whose JDK clients are {@link MeteredHttpClient}s: fabric8 configures the JDK
 * builder as usual, and the client it builds reports each request to the listener.
 */
final class MeteredHttpClientFactory extends JdkHttpClientFactory {
    private final ApiRequestListener listener;
    private final LongSupplier nanoTime;

    MeteredHttpClientFactory(ApiRequestListener listener, LongSupplier nanoTime) {
        this.listener = listener;
        this.nanoTime = nanoTime;
    }

    @Override
    protected HttpClient.Builder createNewHttpClientBuilder() {
        return new MeteredBuilder(super.createNewHttpClientBuilder());
    }

    /** Passes every setting to the JDK builder and wraps what it builds. */
    private final class MeteredBuilder implements HttpClient.Builder {
        private final HttpClient.Builder builder;

        MeteredBuilder(HttpClient.Builder builder) {
            this.builder = builder;
        }

        @Override
        public HttpClient.Builder cookieHandler(CookieHandler cookieHandler) {
            builder.cookieHandler(cookieHandler);
            return this;
        }

        @Override
        public HttpClient.Builder connectTimeout(Duration duration) {
            builder.connectTimeout(duration);
            return this;
        }

        @Override
        public HttpClient.Builder sslContext(SSLContext sslContext) {
            builder.sslContext(sslContext);
            return this;
        }

        @Override
        public HttpClient.Builder sslParameters(SSLParameters sslParameters) {
            builder.sslParameters(sslParameters);
            return this;
        }

        @Override
        public HttpClient.Builder executor(Executor executor) {
            builder.executor(executor);
            return this;
        }

        @Override
        public HttpClient.Builder followRedirects(Redirect policy) {
            builder.followRedirects(policy);
            return this;
        }

        @Override
        public HttpClient.Builder version(Version version) {
            builder.version(version);
            return this;
        }

        @Override
        public HttpClient.Builder priority(int priority) {
            builder.priority(priority);
            return this;
        }

        @Override
        public HttpClient.Builder proxy(ProxySelector proxySelector) {
            builder.proxy(proxySelector);
            return this;
        }

        @Override
        public HttpClient.Builder authenticator(Authenticator authenticator) {
            builder.authenticator(authenticator);
            return this;
        }

        @Override
        public HttpClient build() {
            return new MeteredHttpClient(builder.build(), listener, nanoTime);
        }
    }
}
