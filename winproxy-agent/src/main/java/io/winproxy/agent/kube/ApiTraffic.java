package io.winproxy.agent.kube;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fans the outcome of each API request out to the listeners added so far (metrics, the API server monitor). Built
 * before the client, so that listeners created later (the watcher's monitor) can still be added. Thread-safe.
 */
public final class ApiTraffic implements ApiRequestListener {
    private static final Logger logger = LoggerFactory.getLogger(ApiTraffic.class);

    private final List<ApiRequestListener> listeners = new CopyOnWriteArrayList<>();

    public void add(ApiRequestListener listener) {
        listeners.add(listener);
    }

    public void remove(ApiRequestListener listener) {
        listeners.remove(listener);
    }

    @Override
    public void completed(ApiRequest request) {
        for (ApiRequestListener listener : listeners) {
            try {
                listener.completed(request);
            } catch (RuntimeException e) {
                logger.atDebug().setMessage("An API request listener failed").setCause(e).log();
            }
        }
    }
}
