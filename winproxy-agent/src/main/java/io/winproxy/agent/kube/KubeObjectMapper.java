package io.winproxy.agent.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Base of the mappers from a fabric8 object to the policy model ({@link ServiceMapper}, {@link EndpointSliceMapper},
 * {@link NodeMapper}). {@link #map} never throws: an object without {@code metadata.name} maps to empty with one
 * warning ({@code "Ignoring a Service without metadata.name"}); a subclass maps the rest and reports each malformed
 * part it drops to {@link #warnings}, naming the object ({@code "Service ns/name: detail"}). Stateless and
 * thread-safe as long as the warnings consumer is.
 *
 * @param <O> the fabric8 type
 * @param <I> the model type
 */
public abstract class KubeObjectMapper<O extends HasMetadata, I> {
    /** Receives one line per dropped part, naming the object. */
    protected final Consumer<String> warnings;
    private final String kind;
    private final boolean namespaced;

    /**
     * @param kind       the object kind as warnings name it, e.g. {@code EndpointSlice}
     * @param namespaced whether warnings name the object {@code ns/name} (else {@code name})
     * @param warnings   receives one line per dropped part, naming the object, e.g. {@link #loggedWarnings()}
     */
    protected KubeObjectMapper(String kind, boolean namespaced, Consumer<String> warnings) {
        this.kind = kind;
        this.namespaced = namespaced;
        this.warnings = warnings;
    }

    /**
     * The agent's warnings: one structured log line each, a repeated one held back for a while
     * ({@link MappingWarnings}).
     */
    public static Consumer<String> loggedWarnings() {
        return MappingWarnings.log();
    }

    /** The model of {@code object}; empty (with a warning) when it is null or has no name. */
    public final Optional<I> map(O object) {
        ObjectMeta meta = object == null ? null : object.getMetadata();
        if (meta == null || meta.getName() == null || meta.getName().isEmpty()) {
            String article = "AEIOU".indexOf(kind.charAt(0)) >= 0 ? "an " : "a ";
            warnings.accept("Ignoring " + article + kind + " without metadata.name");
            return Optional.empty();
        }
        String namespace = meta.getNamespace() == null ? "default" : meta.getNamespace();
        String id = kind + " " + (namespaced ? namespace + "/" : "") + meta.getName();
        return Optional.of(mapNamed(object, meta, id));
    }

    /**
     * Maps an object whose {@code meta} has a name; never throws, never returns null.
     *
     * @param id how warnings name the object, e.g. {@code Service ns/name} or {@code Node name}
     */
    protected abstract I mapNamed(O object, ObjectMeta meta, String id);

    /** The object's namespace ({@code default} when unset), shared. */
    protected static String namespace(ObjectMeta meta) {
        return SharedStrings.of(meta.getNamespace() == null ? "default" : meta.getNamespace());
    }
}
