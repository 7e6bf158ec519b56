package io.winproxy.agent.health;

import io.winproxy.agent.metrics.AgentMetrics;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Counts the health responses reported to the metrics port. */
final class CountingMetrics implements AgentMetrics {
    final Map<Integer, Integer> healthz = new ConcurrentHashMap<>();
    final Map<Integer, Integer> livez = new ConcurrentHashMap<>();

    @Override
    public void healthzResponse(int statusCode) {
        healthz.merge(statusCode, 1, Integer::sum);
    }

    @Override
    public void livezResponse(int statusCode) {
        livez.merge(statusCode, 1, Integer::sum);
    }
}
