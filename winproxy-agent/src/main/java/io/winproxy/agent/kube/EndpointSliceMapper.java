package io.winproxy.agent.kube;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointConditions;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointHints;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.ForNode;
import io.fabric8.kubernetes.api.model.discovery.v1.ForZone;
import io.winproxy.policy.model.EndpointSliceInfo;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Maps a {@code discovery.k8s.io/v1} {@link EndpointSlice} to {@link EndpointSliceInfo}. Never throws: an
 * unparsable trigger-time annotation or a malformed endpoint is dropped with a warning naming the slice (one warning
 * for all of a slice's endpoints without addresses, with their count); an object without a name maps to empty.
 * Stateless and thread-safe.
 */
public final class EndpointSliceMapper extends KubeObjectMapper<EndpointSlice, EndpointSliceInfo> {
    /** The label naming the Service a slice belongs to. */
    public static final String SERVICE_NAME_LABEL = "kubernetes.io/service-name";
    /** When the change that produced this slice happened (used for the network-programming latency metric). */
    public static final String TRIGGER_TIME_ANNOTATION = "endpoints.kubernetes.io/last-change-trigger-time";

    /** How many indexes a warning about endpoints without addresses lists. */
    static final int SHOWN_INDEXES = 5;

    /** @param warnings receives one line per dropped part, naming the slice (the log: {@link #loggedWarnings()}) */
    public EndpointSliceMapper(Consumer<String> warnings) {
        super("EndpointSlice", true, warnings);
    }

    @Override
    protected EndpointSliceInfo mapNamed(EndpointSlice slice, ObjectMeta meta, String id) {
        String namespace = namespace(meta);
        Map<String, String> labels = meta.getLabels() == null ? Map.of() : meta.getLabels();
        String serviceName = labels.get(SERVICE_NAME_LABEL);
        if (serviceName != null && serviceName.isEmpty()) {
            serviceName = null;
        }
        return new EndpointSliceInfo(namespace, meta.getName(), SharedStrings.of(serviceName),
                SharedStrings.of(slice.getAddressType()),
                ports(id, slice.getPorts()), endpoints(id, slice.getEndpoints()), triggerTime(id, meta));
    }

    private Instant triggerTime(String id, ObjectMeta meta) {
        String text = meta.getAnnotations() == null ? null : meta.getAnnotations().get(TRIGGER_TIME_ANNOTATION);
        if (text == null || text.isBlank()) {
            return null;
        }
        try {
            return OffsetDateTime.parse(text.trim()).toInstant();
        } catch (DateTimeParseException e) {
            warnings.accept(id + ": annotation " + TRIGGER_TIME_ANNOTATION + " is not an RFC 3339 time (\"" + text
                    + "\"); ignored");
            return null;
        }
    }

    private static List<EndpointSliceInfo.SlicePort> ports(String id, List<EndpointPort> ports) {
        List<EndpointSliceInfo.SlicePort> result = new ArrayList<>();
        if (ports != null) {
            for (EndpointPort p : ports) {
                if (p != null) {
                    result.add(new EndpointSliceInfo.SlicePort(p.getName() == null ? ""
                            : SharedStrings.of(p.getName()), SharedStrings.of(p.getProtocol()), p.getPort()));
                }
            }
        }
        return result;
    }

    private List<EndpointSliceInfo.SliceEndpoint> endpoints(String id, List<Endpoint> endpoints) {
        List<EndpointSliceInfo.SliceEndpoint> result = new ArrayList<>();
        if (endpoints == null) {
            return result;
        }
        List<Integer> withoutAddresses = new ArrayList<>();
        for (int i = 0; i < endpoints.size(); i++) {
            Endpoint e = endpoints.get(i);
            List<String> addresses = e == null ? List.of() : ServiceMapper.withoutNulls(e.getAddresses());
            if (addresses.isEmpty()) {
                withoutAddresses.add(i);
                continue;
            }
            EndpointConditions c = e.getConditions();
            EndpointHints hints = e.getHints();
            List<String> zoneHints = hints == null || hints.getForZones() == null ? List.of()
                    : hints.getForZones().stream().filter(Objects::nonNull).map(ForZone::getName)
                            .filter(Objects::nonNull).map(SharedStrings::of).toList();
            List<String> nodeHints = hints == null || hints.getForNodes() == null ? List.of()
                    : hints.getForNodes().stream().filter(Objects::nonNull).map(ForNode::getName)
                            .filter(Objects::nonNull).map(SharedStrings::of).toList();
            result.add(new EndpointSliceInfo.SliceEndpoint(addresses,
                    c == null ? null : c.getReady(), c == null ? null : c.getServing(),
                    c == null ? null : c.getTerminating(), SharedStrings.of(e.getNodeName()), SharedStrings.of(e.getZone()),
                    zoneHints, nodeHints));
        }
        if (!withoutAddresses.isEmpty()) {
            warnings.accept(id + ": " + withoutAddresses(withoutAddresses) + "; dropped");
        }
        return result;
    }

    /** One warning for all endpoints without addresses: "endpoints[3] has", or "N endpoints (...) have". */
    static String withoutAddresses(List<Integer> indexes) {
        if (indexes.size() == 1) {
            return "endpoints[" + indexes.get(0) + "] has no addresses";
        }
        StringBuilder shown = new StringBuilder();
        for (int i = 0; i < Math.min(indexes.size(), SHOWN_INDEXES); i++) {
            shown.append(i == 0 ? "" : ", ").append(indexes.get(i));
        }
        if (indexes.size() > SHOWN_INDEXES) {
            shown.append(", ...");
        }
        return indexes.size() + " endpoints have no addresses (endpoints[" + shown + "])";
    }
}
