package io.winproxy.agent.kube;

import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.NodeInfo;
import io.winproxy.policy.model.ServiceInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/** Records every callback in arrival order (tests only). Thread-safe. */
final class RecordingHandler implements ClusterEventHandler {

    /** One callback: {@code what} is "service", "slice", "node" or a "*Synced" marker. */
    record Call(String what, Object previous, Object current) {
        boolean isAdd() {
            return previous == null && current != null;
        }

        boolean isDelete() {
            return previous != null && current == null;
        }

        String name() {
            Object o = current != null ? current : previous;
            if (o instanceof ServiceInfo s) {
                return s.key();
            }
            if (o instanceof EndpointSliceInfo e) {
                return e.key();
            }
            if (o instanceof NodeInfo n) {
                return n.name();
            }
            return what;
        }
    }

    private final List<Call> calls = new ArrayList<>();

    synchronized List<Call> calls() {
        return List.copyOf(calls);
    }

    synchronized boolean has(Predicate<Call> predicate) {
        return calls.stream().anyMatch(predicate);
    }

    synchronized int indexOf(Predicate<Call> predicate) {
        for (int i = 0; i < calls.size(); i++) {
            if (predicate.test(calls.get(i))) {
                return i;
            }
        }
        return -1;
    }

    private synchronized void record(String what, Object previous, Object current) {
        calls.add(new Call(what, previous, current));
    }

    @Override
    public void onService(ServiceInfo previous, ServiceInfo current) {
        record("service", previous, current);
    }

    @Override
    public void onEndpointSlice(EndpointSliceInfo previous, EndpointSliceInfo current) {
        record("slice", previous, current);
    }

    @Override
    public void onNode(NodeInfo previous, NodeInfo current) {
        record("node", previous, current);
    }

    @Override
    public void onServicesSynced() {
        record("servicesSynced", null, null);
    }

    @Override
    public void onEndpointSlicesSynced() {
        record("slicesSynced", null, null);
    }

    @Override
    public void onNodeSynced() {
        record("nodeSynced", null, null);
    }
}
