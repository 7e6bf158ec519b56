package io.winproxy.agent.kube;

import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;

/**
 * Client-side rate limiting as client-go's {@code --kube-api-qps} / {@code --kube-api-burst}: a token bucket of
 * {@code burst} tokens refilled at {@code qps} per second. A request that finds the bucket empty waits for its
 * token in {@link #before}. Thread-safe.
 */
final class RateLimitInterceptor implements Interceptor {
    static final String NAME = "winproxy-rate-limit";

    private final TokenBucket bucket;

    RateLimitInterceptor(TokenBucket bucket) {
        this.bucket = bucket;
    }

    @Override
    public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
        bucket.acquire();
    }
}
