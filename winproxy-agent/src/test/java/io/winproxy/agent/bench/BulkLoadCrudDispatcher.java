package io.winproxy.agent.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.http.MockResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * fabric8's CRUD mock server, loadable in linear time and paging its lists as a real API server does.
 *
 * <p>Loading: a create looks for an existing object by scanning every stored one, so loading 20,000 objects takes
 * minutes; while {@link #loading} is set, creates skip that conflict check (the benchmark creates each object once,
 * under a unique name).
 *
 * <p>Paging: the CRUD dispatcher ignores {@code limit} and answers a list with every object at once, which a real API
 * server never does (it answers {@code limit} objects and a {@code continue} token); the agent lists in pages of 500, so
 * with the whole list its heap would hold 10,000 fabric8 objects at once, which no node sees. Here a list with
 * {@code limit=N} answers N items from the offset its {@code continue} token names, and a token for the next page
 * while there is one. The cluster does not change while the agent lists, so the pages are one consistent list.
 * Everything else is the CRUD dispatcher's own behaviour.
 */
final class BulkLoadCrudDispatcher extends KubernetesCrudDispatcher {
    private static final ObjectMapper JSON = new ObjectMapper();
    private volatile boolean loading;

    void loading(boolean on) {
        loading = on;
    }

    @Override
    public Map.Entry<AttributeSet, String> findResource(AttributeSet query) {
        return loading ? null : super.findResource(query);
    }

    @Override
    public MockResponse handleGet(String path) {
        int q = path.indexOf('?');
        if (q < 0) {
            return super.handleGet(path);
        }
        List<String> kept = new ArrayList<>();
        int limit = -1;
        int offset = 0;
        for (String param : path.substring(q + 1).split("&")) {
            if (param.startsWith("limit=")) {
                limit = Integer.parseInt(param.substring(6));
            } else if (param.startsWith("continue=")) {
                offset = Integer.parseInt(param.substring(9));
            } else if (!param.isEmpty()) {
                kept.add(param);
            }
        }
        if (limit <= 0) {
            return super.handleGet(path);
        }
        MockResponse full = super.handleGet(path.substring(0, q) + (kept.isEmpty() ? "" : "?" + String.join("&", kept)));
        if (full.code() != 200) {
            return full;
        }
        try {
            JsonNode list = JSON.readTree(full.getBody().readUtf8());
            if (!(list instanceof ObjectNode root) || !(list.get("items") instanceof ArrayNode items)) {
                return full.setBody(JSON.writeValueAsString(list));
            }
            ArrayNode page = JSON.createArrayNode();
            for (int i = offset; i < Math.min(items.size(), offset + limit); i++) {
                page.add(items.get(i));
            }
            root.set("items", page);
            ObjectNode metadata = root.with("metadata");
            if (offset + limit < items.size()) {
                metadata.put("continue", Integer.toString(offset + limit));
            } else {
                metadata.remove("continue");
            }
            return full.setBody(JSON.writeValueAsString(root));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
