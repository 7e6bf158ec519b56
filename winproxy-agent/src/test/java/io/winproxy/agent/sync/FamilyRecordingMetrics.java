package io.winproxy.agent.sync;

import io.winproxy.agent.metrics.AgentMetrics;
import io.winproxy.policy.model.IpFamily;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records the per-family metric calls of the sync loop. */
final class FamilyRecordingMetrics implements AgentMetrics {
    final Map<IpFamily, List<Duration>> syncDurations = new ConcurrentHashMap<>();
    final Map<IpFamily, Instant> syncTimestamps = new ConcurrentHashMap<>();
    final Map<IpFamily, Instant> queuedTimestamps = new ConcurrentHashMap<>();
    final Map<IpFamily, List<Duration>> latencies = new ConcurrentHashMap<>();
    final Map<IpFamily, List<Integer>> noLocal = new ConcurrentHashMap<>();
    final List<IpFamily> removed = new CopyOnWriteArrayList<>();

    @Override
    public void familyRemoved(IpFamily family) {
        removed.add(family);
        syncTimestamps.remove(family);
        queuedTimestamps.remove(family);
        noLocal.remove(family);
    }

    @Override
    public void syncDuration(IpFamily family, Duration duration) {
        syncDurations.computeIfAbsent(family, f -> new CopyOnWriteArrayList<>()).add(duration);
    }

    @Override
    public void syncTimestamp(IpFamily family, Instant when) {
        syncTimestamps.put(family, when);
    }

    @Override
    public void queuedTimestamp(IpFamily family, Instant when) {
        queuedTimestamps.put(family, when);
    }

    @Override
    public void observeNetworkProgrammingLatency(IpFamily family, Duration latency) {
        latencies.computeIfAbsent(family, f -> new CopyOnWriteArrayList<>()).add(latency);
    }

    @Override
    public void noLocalEndpoints(IpFamily family, int internal, int external) {
        noLocal.put(family, List.of(internal, external));
    }

    int latencyCount(IpFamily family) {
        return latencies.getOrDefault(family, List.of()).size();
    }
}
