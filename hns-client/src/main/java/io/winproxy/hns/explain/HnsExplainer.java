package io.winproxy.hns.explain;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.model.HcnErrorRecord;
import io.winproxy.hns.model.HcnJson;
import io.winproxy.hns.model.HnsCallResponse;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.hns.model.HostComputeQuery;
import io.winproxy.hns.model.V1Endpoint;
import io.winproxy.hns.model.V1Network;
import io.winproxy.hns.model.V1PolicyList;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * The logic of {@code hns explain}: decodes an HCN/HNS JSON document of any kind and says what it means. Accepts a
 * v2 load balancer, a v1 policy list ({@code Get-HnsPolicyList}), a v2 or v1 endpoint, a v2 or v1 network, an HCN
 * error record, an {@code HNSCall} envelope, an HCN query document (its double-encoded filter decoded), a JSON
 * array of those, and PowerShell {@code ConvertTo-Json} output (byte-order mark, a prompt line before the JSON, the
 * {@code {"value":[...],"Count":n}} wrapper of Windows PowerShell 5.1, one-element arrays written as bare values,
 * objects written as {@code "@{k=v; ...}"} strings and arrays cut to {@code System.Object[]} beyond its depth), and
 * a kube-proxy log line in klog's text or JSON form, whose {@code err} value holds the HNS error ({@link KlogLine}).
 *
 * <p>Anything else is refused with an {@link IllegalArgumentException} whose message is one line (never a parser
 * stack trace). Stateless and thread-safe.
 */
public final class HnsExplainer {
    private static final String TRUNCATED_NOTE = "PowerShell truncated nested values (System.Object[] or @{...}); "
            + "re-run ConvertTo-Json with -Depth 10";
    private static final Set<String> NETWORK_MODES = Set.of("nat", "ics", "transparent", "l2bridge", "l2tunnel",
            "overlay", "private", "internal", "mirrored", "infiniband", "constrainedics");

    private final ObjectMapper mapper = HcnJson.newMapper();

    private static final String NO_HNS_ERROR = "a kube-proxy log line with no HNS error in it: expected an err value"
            + " holding an HCN error record ({\"Success\":false,...}) or an (0x...) HRESULT";

    /**
     * Explains {@code document}; throws {@link IllegalArgumentException} (one-line message) when it cannot. A
     * kube-proxy log line (klog text or JSON) is accepted too: the HNS error inside its {@code err} value is
     * explained.
     */
    public Explanation explain(String document) {
        if (document != null && KlogLine.isTextLine(document)) {
            document = KlogLine.fromText(document).orElseThrow(() -> new IllegalArgumentException(NO_HNS_ERROR));
        }
        JsonNode tree = parse(document);
        if (KlogLine.isJsonRecord(tree)) {
            tree = parse(KlogLine.fromJson(tree).orElseThrow(() -> new IllegalArgumentException(NO_HNS_ERROR)));
        }
        try {
            return explainNode(tree, 0);
        } catch (IllegalArgumentException e) {
            if (PowerShellValues.hasTruncated(tree) && !e.getMessage().contains(TRUNCATED_NOTE)) {
                throw new IllegalArgumentException(e.getMessage() + "; " + TRUNCATED_NOTE);
            }
            throw e;
        }
    }

    private JsonNode parse(String document) {
        if (document == null || document.isBlank()) {
            throw new IllegalArgumentException("empty document: expected an HNS JSON document");
        }
        String text = document.replace("\uFEFF", "").trim();
        if (!text.startsWith("{") && !text.startsWith("[")) {
            int start = firstJsonLine(text);
            if (start < 0) {
                // e.g. a kube-proxy log line: "... (0x803b0013) {"Success":false,...}"
                start = text.indexOf('{');
            }
            if (start < 0) {
                throw new IllegalArgumentException("not JSON: an HNS document starts with '{' or '['");
            }
            text = text.substring(start);
        }
        try {
            return mapper.readTree(text);
        } catch (JsonProcessingException e) {
            JsonLocation loc = e.getLocation();
            String where = loc == null ? "" : " at line " + loc.getLineNr() + " column " + loc.getColumnNr();
            throw new IllegalArgumentException("not valid JSON" + where + ": " + firstLine(e.getOriginalMessage()));
        }
    }

    /** The offset of the first line that starts with '{' or '[' (skipping e.g. a PowerShell prompt line). */
    private static int firstJsonLine(String text) {
        int offset = 0;
        for (String line : text.split("\n", -1)) {
            String t = line.stripLeading();
            if (t.startsWith("{") || t.startsWith("[")) {
                return offset + (line.length() - t.length());
            }
            offset += line.length() + 1;
        }
        return -1;
    }

    private Explanation explainNode(JsonNode original, int depth) {
        // An object nested deeper than ConvertTo-Json's -Depth arrives as "@{k=v; ...}": rebuild it first.
        JsonNode node = original.isTextual() ? PowerShellValues.expand(original) : original;
        if (node.isArray()) {
            if (node.isEmpty()) {
                throw new IllegalArgumentException("empty JSON array: nothing to explain");
            }
            List<Explanation> items = new ArrayList<>();
            int i = 1;
            for (JsonNode item : node) {
                try {
                    items.add(explainNode(item, depth + 1));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("item " + i + ": " + e.getMessage());
                }
                i++;
            }
            return items.size() == 1 ? items.get(0) : Summaries.list(items);
        }
        if (!node.isObject()) {
            throw new IllegalArgumentException("not an HNS document: expected a JSON object or array, got "
                    + node.getNodeType().toString().toLowerCase(Locale.ROOT));
        }
        Set<String> m = members(node);
        if (m.contains("value") && m.contains("count") && m.size() == 2 && member(node, "value").isArray()) {
            return explainNode(member(node, "value"), depth);
        }
        List<String> notes = PowerShellValues.hasTruncated(node) ? List.of(TRUNCATED_NOTE) : List.of();
        if (m.contains("success") && m.contains("output")) {
            HnsCallResponse r = decode(node, HnsCallResponse.class, "HNSCall envelope");
            JsonNode out = r.output();
            Explanation inner = out == null || out.isNull() || out.isEmpty() && !out.isValueNode() ? null
                    : explainOutput(out, depth);
            return Summaries.hnsCall(r.success(), r.error(), inner, notes);
        }
        if (m.contains("errorcode") || m.contains("success") && m.contains("error")) {
            return Summaries.errorRecord(decode(node, HcnErrorRecord.class, "error record"), notes);
        }
        if (m.contains("portmappings") || m.contains("frontendvips") || m.contains("hostcomputeendpoints")) {
            return Summaries.loadBalancer(decode(node, HostComputeLoadBalancer.class, "load balancer"),
                    "load-balancer", notes);
        }
        if (m.contains("references") || hasPolicyOfType(node, "ELB")) {
            return Summaries.policyList(decode(node, V1PolicyList.class, "v1 policy list"), notes);
        }
        if (m.contains("ipconfigurations") || m.contains("hostcomputenetwork")) {
            return Summaries.endpoint(decode(node, HostComputeEndpoint.class, "endpoint"), "endpoint", null, notes);
        }
        if (m.contains("virtualnetwork") || m.contains("virtualnetworkname") || m.contains("isremoteendpoint")
                || m.contains("ipaddress")) {
            return Summaries.v1Endpoint(decode(node, V1Endpoint.class, "v1 endpoint"), notes);
        }
        if (m.contains("ipams") || m.contains("schemaversion") && isNetworkType(node)) {
            return Summaries.network(decode(node, HostComputeNetwork.class, "network"), "network", null, notes);
        }
        if (m.contains("subnets") || m.contains("networkadaptername") || m.contains("managementip")
                || m.contains("macpools") || m.contains("sourcemac") || isNetworkType(node)) {
            JsonNode drMac = member(node, "drmacaddress");
            return Summaries.v1Network(decode(node, V1Network.class, "v1 network"),
                    drMac != null && drMac.isTextual() ? drMac.asText() : null, notes);
        }
        if (m.contains("filter") && Set.of("schemaversion", "flags", "filter").containsAll(m)) {
            HostComputeQuery q = decode(node, HostComputeQuery.class, "query");
            try {
                return Summaries.query(q, q.filterEntries(mapper), notes);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("cannot read query: " + e.getMessage());
            }
        }
        if (Summaries.isVersionObject(node)) {
            return Summaries.version(new HnsVersion(node.get("Major").asInt(), node.get("Minor").asInt()), notes);
        }
        throw new IllegalArgumentException("not a recognised HNS document (members: " + String.join(", ",
                new TreeSet<>(fieldNames(node))) + "): expected a load balancer, policy list, endpoint, network, "
                + "error record or HNSCall envelope");
    }

    private Explanation explainOutput(JsonNode out, int depth) {
        if (Summaries.isVersionObject(out)) {
            return Summaries.version(new HnsVersion(out.get("Major").asInt(), out.get("Minor").asInt()), List.of());
        }
        return explainNode(out, depth + 1);
    }

    private <T> T decode(JsonNode node, Class<T> type, String what) {
        try {
            return mapper.treeToValue(PowerShellValues.expand(node), type);
        } catch (MismatchedInputException e) {
            String path = e.getPath().stream().map(r -> r.getFieldName() != null ? r.getFieldName()
                    : "[" + r.getIndex() + "]").reduce((a, b) -> a + "." + b).orElse("?");
            throw new IllegalArgumentException("cannot read " + what + ": member " + path + " has the wrong type ("
                    + firstLine(e.getOriginalMessage()) + ")");
        } catch (JacksonException e) {
            throw new IllegalArgumentException("cannot read " + what + ": " + firstLine(e.getOriginalMessage()));
        }
    }

    private static boolean isNetworkType(JsonNode node) {
        JsonNode type = member(node, "type");
        return type != null && type.isTextual() && NETWORK_MODES.contains(type.asText().toLowerCase(Locale.ROOT));
    }

    private static boolean hasPolicyOfType(JsonNode node, String type) {
        JsonNode policies = member(node, "policies");
        if (policies == null) {
            return false;
        }
        for (JsonNode p : PowerShellValues.expand(policies.isArray() ? policies
                : JsonNodeFactory.instance.arrayNode().add(policies))) {
            JsonNode t = member(p, "type");
            if (t != null && t.asText().equalsIgnoreCase(type)) {
                return true;
            }
        }
        return false;
    }

    private static Set<String> members(JsonNode node) {
        Set<String> out = new TreeSet<>();
        fieldNames(node).forEach(n -> out.add(n.toLowerCase(Locale.ROOT)));
        return out;
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static JsonNode member(JsonNode node, String lowerName) {
        if (node == null || !node.isObject()) {
            return null;
        }
        Iterator<String> it = node.fieldNames();
        while (it.hasNext()) {
            String n = it.next();
            if (n.equalsIgnoreCase(lowerName)) {
                return node.get(n);
            }
        }
        return null;
    }

    /** The first line of a parser message, without Jackson's "(start marker at [Source: ...])" locations. */
    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        String line = nl >= 0 ? s.substring(0, nl) : s;
        for (String location : List.of(" (start marker at", " at [Source")) {
            int at = line.indexOf(location);
            if (at > 0) {
                line = line.substring(0, at);
            }
        }
        return line.trim();
    }
}
