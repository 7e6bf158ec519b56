package io.winproxy.agent.bench;

import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.crud.AttributeSet;
import java.util.Map;

/**
 * fabric8's CRUD mock server, loadable in linear time. A create looks for an existing object by scanning every stored
 * one, so loading 20,000 objects takes minutes; while {@link #loading} is set, creates skip that conflict check
 * (the benchmark creates each object once, under a unique name). Everything else is the CRUD dispatcher's own
 * behaviour: the agent lists, watches and sees updates as the ITs' server serves them.
 */
final class BulkLoadCrudDispatcher extends KubernetesCrudDispatcher {
    private volatile boolean loading;

    void loading(boolean on) {
        loading = on;
    }

    @Override
    public Map.Entry<AttributeSet, String> findResource(AttributeSet query) {
        return loading ? null : super.findResource(query);
    }
}
