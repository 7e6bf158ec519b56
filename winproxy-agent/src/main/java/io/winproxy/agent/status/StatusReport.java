package io.winproxy.agent.status;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.model.ServicePortInfo;
import io.winproxy.policy.model.ServicePortName;
import io.winproxy.policy.plan.PlanStep;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The status document: every Service port of one Service, or of all, on this node ({@link StatusCalculator} per
 * port), in "ns/name:port" order, at most {@code limit} per page. The JSON form is what {@code winproxy status -o json}
 * prints and the agent's {@code /status/services} serves (docs/health-and-metrics.md).
 */
public final class StatusReport {
    /** The most ports one page holds. */
    public static final int MAX_LIMIT = 1000;
    public static final int DEFAULT_LIMIT = 500;

    private static final Pattern SERVICE = Pattern.compile(
            "[a-z0-9]([-a-z0-9]*[a-z0-9])?/[a-z0-9]([-.a-z0-9]*[a-z0-9])?");

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /**
     * @param source       {@code agent} or {@code computed}
     * @param from         where the status came from, one phrase ("the running agent at 127.0.0.1:10249", or the
     *                     inputs of the computation)
     * @param node         this node
     * @param generatedAt  when (ISO-8601)
     * @param synced       false when the agent has not completed a sync yet (every port then reads pending)
     * @param servicePorts the ports of this page
     * @param next         the last port of this page when more follow (pass it as {@code after}), else null
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record Document(String source, String from, String node, String generatedAt, boolean synced,
                           List<ServicePortStatus> servicePorts, String next) {
        /** The same document, said to come from {@code from}. */
        public Document from(String newFrom) {
            return new Document(source, newFrom, node, generatedAt, synced, servicePorts, next);
        }

        public String json() {
            try {
                return JSON.writeValueAsString(this);
            } catch (JsonProcessingException e) {
                throw new UncheckedIOException(e);
            }
        }

        public static Document parse(String json) {
            try {
                return JSON.readValue(json, Document.class);
            } catch (JsonProcessingException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private StatusReport() {
    }

    /** Whether {@code text} names a Service as {@code namespace/name} (DNS labels, as Kubernetes requires). */
    public static boolean isServiceName(String text) {
        return SERVICE.matcher(text).matches();
    }

    /**
     * @param service "ns/name" to report one Service, or null for all
     * @param limit   ports per page (1..{@link #MAX_LIMIT})
     * @param after   the {@code next} of the previous page, or null for the first
     */
    public static Document build(SyncView view, String service, int limit, String after) {
        List<ServicePortInfo> ports = new ArrayList<>(service == null ? view.state().services().asMap().values()
                : view.state().services().ofService(service));
        ports.sort(Comparator.comparing(p -> p.name().toString()));
        DesiredState desired = view.desired() == null ? new DesiredState(List.of(), List.of(), List.of())
                : view.desired();
        Map<String, String> ownedIds = new HashMap<>();
        view.journal().loadBalancers().forEach((id, e) -> ownedIds.put(StatusCalculator.keyId(e.key(), e.ipv6()), id));
        Map<String, List<PlanStep>> steps = StatusCalculator.stepsByServicePort(view.pendingSteps());
        StatusCalculator.Inputs inputs = new StatusCalculator.Inputs(desired, ownedIds, steps, view.families(),
                StatusCalculator.warningsByService(desired.warnings()));
        List<ServicePortStatus> out = new ArrayList<>();
        String next = null;
        for (ServicePortInfo info : ports) {
            ServicePortName name = info.name();
            if (after != null && name.toString().compareTo(after) <= 0) {
                continue;
            }
            if (out.size() == limit) {
                next = out.get(out.size() - 1).servicePort();
                break;
            }
            ProgrammingBook.Entry entry = view.book() == null ? null : view.book().get(name.toString());
            ServicePortStatus status = StatusCalculator.of(info, view.state().endpointsOf(name), inputs, entry);
            if (!view.synced()) {
                status = new ServicePortStatus(status.service(), status.port(), status.protocol(),
                        ServicePortStatus.PENDING, "the agent has not completed its first sync", null,
                        status.frontends(), status.backends(), status.loadBalancers(), null, null, null, null,
                        status.notes());
            }
            out.add(status);
        }
        return new Document(view.source(), view.source().equals(SyncView.AGENT) ? "the running agent" : "",
                view.nodeName(), view.at().toString(), view.synced(), out, next);
    }
}
