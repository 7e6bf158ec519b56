package io.winproxy.agent.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * An informer cache that keeps, for each object, only its key ("namespace/name") and {@code resourceVersion}: what
 * fabric8's informer needs to tell an update from a resync and to find deletions on a relist. The proxy never reads
 * the informer's cache: {@link MappedInformer} maps each object to a compact value as it arrives and keeps that
 * value itself, so holding the full fabric8 objects (managed fields, annotations, status, ...) would only cost heap.
 * At 10,000 Services and 10,000 EndpointSlices that is the difference between tens of megabytes and about two.
 *
 * <p>What the store hands back ({@link #get}, {@link #values}, the previous object of {@link #put} and
 * {@link #remove}) are shells: new objects of the informer's type carrying only {@code metadata.namespace},
 * {@code metadata.name} and {@code metadata.resourceVersion}. {@link #isFullState()} is false, so fabric8 delivers
 * the initial list's adds with the listed objects themselves (not rebuilt from this store). Thread-safe.
 *
 * @param <T> the fabric8 type
 */
final class KeyOnlyItemStore<T extends HasMetadata> implements ItemStore<T> {
    private final Supplier<T> blank;
    private final Map<String, String> resourceVersions = new ConcurrentHashMap<>();

    /** @param blank a new, empty object of the informer's type ({@code Service::new}), for the shells */
    KeyOnlyItemStore(Supplier<T> blank) {
        this.blank = blank;
    }

    @Override
    public String getKey(T obj) {
        return Cache.metaNamespaceKeyFunc(obj);
    }

    @Override
    public T put(String key, T obj) {
        String version = obj.getMetadata() == null ? null : obj.getMetadata().getResourceVersion();
        String previous = resourceVersions.put(key, version == null ? "" : version);
        return previous == null ? null : shell(key, previous);
    }

    @Override
    public T remove(String key) {
        String previous = resourceVersions.remove(key);
        return previous == null ? null : shell(key, previous);
    }

    @Override
    public Stream<String> keySet() {
        return resourceVersions.keySet().stream();
    }

    @Override
    public Stream<T> values() {
        return resourceVersions.entrySet().stream().map(e -> shell(e.getKey(), e.getValue()));
    }

    @Override
    public int size() {
        return resourceVersions.size();
    }

    @Override
    public T get(String key) {
        String version = resourceVersions.get(key);
        return version == null ? null : shell(key, version);
    }

    @Override
    public boolean isFullState() {
        return false;
    }

    /** An object of the informer's type with only the namespace, name and resource version of {@code key}. */
    private T shell(String key, String resourceVersion) {
        int slash = key.indexOf('/');
        ObjectMeta meta = new ObjectMeta();
        if (slash >= 0) {
            meta.setNamespace(key.substring(0, slash));
            meta.setName(key.substring(slash + 1));
        } else {
            meta.setName(key);
        }
        meta.setResourceVersion(resourceVersion.isEmpty() ? null : resourceVersion);
        T obj = blank.get();
        obj.setMetadata(meta);
        return obj;
    }
}
