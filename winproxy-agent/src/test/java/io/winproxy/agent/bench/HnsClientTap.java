package io.winproxy.agent.bench;

import io.winproxy.hns.HnsClient;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.HostComputeNetwork;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Collection;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Which HNS documents the agent read, by object ID, and how long its HNS calls took. The native-call journal counts
 * queries by kind only; to tell a read of an object the ownership journal names from a read of a CNI-owned local
 * endpoint, the benchmark gives the agent an {@link HnsClient} that passes every call through unchanged and notes
 * the ID of every document a call other than a create or modify returned (each such document was read with an open,
 * a query and a close). The time spent inside the client separates the emulator's own cost from the agent's: its wall
 * time, and the CPU time of the calling thread inside it (what the node mode subtracts from the sync thread's CPU time:
 * unlike wall time, it does not grow when the machine is loaded).
 *
 * <p>The wrapper is a dynamic proxy of the interface, so methods added to {@link HnsClient} later are passed through
 * to the real client's implementation (never to the interface default); only documents are inspected. Used by the
 * one sync thread.
 */
final class HnsClientTap implements InvocationHandler {
    private final HnsClient delegate;
    private final HnsClient client;
    /** Keyed by the GUID's value (two longs), not its text: at 100,000 objects the text would weigh on the heap. */
    private final Map<UUID, Integer> readsById = new HashMap<>();
    private int documents;
    private int localEndpoints;
    private long nanosInClient;
    private long cpuNanosInClient;
    private final java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
    private final boolean notesDocuments;

    HnsClientTap(HnsClient delegate) {
        this(delegate, true);
    }

    /**
     * @param notesDocuments false for a tap that only times the calls (the node mode's agent process, whose heap must
     *                       not hold the benchmark's notes)
     */
    HnsClientTap(HnsClient delegate, boolean notesDocuments) {
        this.delegate = delegate;
        this.notesDocuments = notesDocuments;
        this.client = (HnsClient) Proxy.newProxyInstance(HnsClient.class.getClassLoader(),
                new Class<?>[] {HnsClient.class}, this);
    }

    /** The client to give the agent: {@code delegate}, reporting to this tap. */
    HnsClient client() {
        return client;
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        Object result;
        long start = System.nanoTime();
        long cpuStart = threads.getCurrentThreadCpuTime();
        try {
            result = method.invoke(delegate, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        } finally {
            cpuNanosInClient += threads.getCurrentThreadCpuTime() - cpuStart;
            nanosInClient += System.nanoTime() - start;
        }
        String name = method.getName();
        if (notesDocuments && !name.startsWith("create") && !name.startsWith("modify")) {
            noteDocuments(result);
        }
        return result;
    }

    private void noteDocuments(Object result) {
        if (result instanceof Optional<?> optional) {
            optional.ifPresent(this::noteDocuments);
        } else if (result instanceof Collection<?> collection) {
            collection.forEach(this::noteDocuments);
        } else if (result instanceof HostComputeEndpoint endpoint) {
            note(endpoint.id());
            if (!endpoint.isRemote()) {
                localEndpoints++;
            }
        } else if (result instanceof HostComputeLoadBalancer lb) {
            note(lb.id());
        } else if (result instanceof HostComputeNetwork network) {
            note(network.id());
        }
    }

    private void note(String id) {
        documents++;
        readsById.merge(normalize(id), 1, Integer::sum);
    }

    static UUID normalize(String id) {
        String bare = id.trim();
        if (bare.startsWith("{") && bare.endsWith("}")) {
            bare = bare.substring(1, bare.length() - 1);
        }
        return UUID.fromString(bare);
    }

    void reset() {
        readsById.clear();
        documents = 0;
        localEndpoints = 0;
        nanosInClient = 0;
        cpuNanosInClient = 0;
    }

    /** CPU time of the calling threads inside the client's calls since the last reset. */
    long cpuMillisInClient() {
        return cpuNanosInClient / 1_000_000;
    }

    /** Time spent inside the client's calls since the last reset. */
    long millisInClient() {
        return nanosInClient / 1_000_000;
    }

    /** Documents read since the last reset. */
    int documents() {
        return documents;
    }

    /** Reads of local (CNI-owned) endpoint documents since the last reset. */
    int localEndpointReads() {
        return localEndpoints;
    }

    /** Reads of documents whose (normalized) ID is in {@code ids}. */
    int readsOf(Set<UUID> ids) {
        int n = 0;
        for (Map.Entry<UUID, Integer> e : readsById.entrySet()) {
            if (ids.contains(e.getKey())) {
                n += e.getValue();
            }
        }
        return n;
    }

    /** The most times one object's document was read since the last reset. */
    int maxReadsOfOneObject() {
        return readsById.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    }
}
