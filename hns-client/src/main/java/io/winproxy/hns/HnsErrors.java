package io.winproxy.hns;

import java.util.Locale;
import java.util.Map;

/**
 * The one HNS error decoder: HRESULT -> symbolic name -> likely cause on a node -> fix. Logs
 * ({@code hresult=0x803b0013 cause="..."}), Events, {@code status}, {@code hns explain}, {@code check} and the failure
 * metrics' {@code error} label all read it, so an operator meets the same words everywhere.
 *
 * <p>The codes operators meet in public issues have a row of their own (docs/hns.md, "Decoded HNS errors", cites the
 * source of each); every other code gets the generic row of its class (not found, already exists, invalid request,
 * HNS unavailable, other), worded from {@link HResults}. Classification is by code only, never by the localized
 * message. Stateless and thread-safe.
 */
public final class HnsErrors {
    /** The docs section every fix points to when it has nothing more specific. */
    public static final String DOC = "docs/hns.md#decoded-hns-errors";

    /** kubernetes#137766's {@code error} label values. */
    public static final String LABEL_NETWORK_NOT_FOUND = "network_not_found";
    public static final String LABEL_PORT_ALREADY_EXISTS = "port_already_exists";
    public static final String LABEL_NOT_IMPLEMENTED = "not_implemented";
    public static final String LABEL_INVALID_IP = "invalid_ip";
    public static final String LABEL_OTHER = "other";

    private static final String HNS_UNAVAILABLE_CAUSE = "HNS is stopped, restarting or overloaded (the call never"
            + " reached it or its answer was lost); a restart also restores ('rehydrates') the objects HNS had";
    private static final String HNS_UNAVAILABLE_FIX = "nothing while it is transient: winproxy keeps all state and"
            + " retries with backoff, then reconciles; if it repeats, check Get-Service hns and the System event log"
            + " (docs/reliability.md)";

    private static final Map<Integer, Row> ROWS = Map.ofEntries(
            row(HResults.HCN_E_PORT_ALREADY_EXISTS,
                    "another load balancer already holds this VIP, protocol and port (a kube-proxy leftover, another"
                            + " agent, or a second Service with the same frontend), or the TCP/IP stack reserved the"
                            + " port (an excluded port range, or a health-check port a local listener binds)",
                    "find the holder with 'winproxy hns list'; after kube-proxy, 'winproxy cleanup --all'; reserved"
                            + " ports: 'netsh int ipv4 show excludedportrange protocol=tcp'"),
            row(HResults.HCN_E_INVALID_IP,
                    "an address in the document (VIP, source VIP or remote endpoint IP) is not in any subnet of the"
                            + " HNS network, typically --source-vip outside this node's pod CIDR",
                    "compare --source-vip and the frontends with the network's subnets ('winproxy hns list');"
                            + " 'winproxy check'"),
            row(HResults.HCN_E_PORT_NOT_FOUND,
                    "a backend endpoint's vSwitch port is gone: the pod's HNS endpoint was deleted or detached"
                            + " between the read and the write (pod churn), or the CNI left a stale endpoint",
                    "transient during pod churn (the next sync uses fresh endpoints); if it persists, compare"
                            + " 'winproxy hns list' with the EndpointSlice and remove the stale endpoint"),
            row(HResults.ERROR_ALREADY_EXISTS,
                    "a create asked for an ID or frontend HNS already has: HNS restored ('rehydrated') its load"
                            + " balancers after a restart, or another creator owns the same frontend",
                    "winproxy adopts a matching load balancer on the next sync; 'winproxy hns list' shows the"
                            + " holder; after kube-proxy, 'winproxy cleanup --all'"),
            row(HResults.E_INVALIDARG,
                    "HNS rejected a value in the document: an empty or oversized backend list (HNS's 'invalid"
                            + " number of destinations'), a port of 0, an address of the wrong family for the"
                            + " network, or flags this HNS build does not know",
                    "'winproxy plan -o json' shows the document; 'winproxy check --probe-hns' probes flag"
                            + " support; the backend limit of docs/policy.md caps the list"),
            row(HResults.E_OUTOFMEMORY,
                    "HNS or VFP could not allocate for the call, typically with very many load balancers or"
                            + " backends on the node, or a node short of memory",
                    "check node memory; reduce load balancers or backends per node (docs/performance.md); as a last"
                            + " resort restart HNS (Restart-Service hns), after which winproxy reconciles"),
            row(HResults.ERROR_NOT_FOUND,
                    "the object the call names does not exist (any more): deleted behind winproxy's back, by"
                            + " another tool, or lost in an HNS restart",
                    "nothing: the next sync enumerates the host and re-creates what is missing (drift repair);"
                            + " 'winproxy status' shows the repair"),
            row(HResults.HCN_E_NETWORK_NOT_FOUND,
                    "the HNS network winproxy programs does not exist: the CNI has not created it yet, --network-name"
                            + " (KUBE_NETWORK) names another network, or the CNI re-created it with a new ID",
                    "'winproxy hns list' lists the networks; set --network-name to the CNI's network; 'winproxy"
                            + " check'"),
            row(HResults.HCN_E_ENDPOINT_NOT_FOUND,
                    "a backend's HNS endpoint is gone: the pod was deleted, or a remote endpoint winproxy created"
                            + " was removed behind its back",
                    "nothing while transient: the next sync re-creates remote endpoints and drops gone backends"),
            row(HResults.HCN_E_POLICY_NOT_FOUND,
                    "a policy the call expects is not on the object, e.g. overlay networking on a Windows build"
                            + " without the required update",
                    "update Windows (overlay needs Windows Server 2019 with KB4489899 or later); 'winproxy check'"),
            row(HResults.HCN_E_INVALID_JSON,
                    "HNS could not parse the document: a member this HNS build does not know, or a malformed"
                            + " document",
                    "'winproxy check --probe-hns' shows what this HNS build accepts; report 'winproxy plan -o json'"
                            + " with the error"),
            row(HResults.HCN_E_INVALID_JSON_REFERENCE,
                    "the load balancer names no endpoint, or an endpoint ID that does not exist (any more)",
                    "transient during pod churn; if it persists, compare 'winproxy hns list' with the"
                            + " EndpointSlice"),
            row(HResults.HCN_E_INVALID_POLICY,
                    "a policy in the document is malformed or misses a required member (an ELB, ACL or OutBoundNAT"
                            + " policy this HNS build reads differently)",
                    "'winproxy plan -o json' shows the document; 'winproxy check --probe-hns'"),
            row(HResults.HCN_E_ADDR_INVALID_OR_RESERVED,
                    "the address is invalid or reserved on this host, e.g. a --source-vip another endpoint or the"
                            + " host already uses",
                    "choose a free --source-vip inside this node's pod CIDR; 'winproxy check'"),
            row(HResults.HCN_E_ENTITY_HAS_REFERENCES,
                    "other objects (e.g. load balancers) still reference the object being removed",
                    "nothing: winproxy deletes load balancers before the endpoints they reference and retries"),
            row(HResults.HCN_E_INVALID_INTERNAL_PORT,
                    "the port mapping's internal (target) port is 0",
                    "check the Service's targetPort and the EndpointSlice's ports"),
            row(HResults.E_NOTIMPL,
                    "this HNS build does not implement the call (HcnModifyLoadBalancer needs HNS 15.4)",
                    "nothing: winproxy replaces the load balancer (delete and create) instead; update Windows for"
                            + " in-place updates"),
            row(HResults.E_ACCESSDENIED,
                    "the agent lacks the rights HNS requires (not SYSTEM or an Administrator, or a HostProcess pod"
                            + " without the privileged user)",
                    "run as the Windows service (LocalSystem) or a HostProcess pod as NT AUTHORITY\\SYSTEM"
                            + " (docs/windows-service.md)"),
            row(HResults.HCN_E_MANAGER_STOPPED, HNS_UNAVAILABLE_CAUSE, HNS_UNAVAILABLE_FIX),
            row(HResults.ERROR_SERVICE_NOT_ACTIVE, HNS_UNAVAILABLE_CAUSE, HNS_UNAVAILABLE_FIX),
            row(HResults.RPC_S_SERVER_UNAVAILABLE, HNS_UNAVAILABLE_CAUSE, HNS_UNAVAILABLE_FIX),
            row(HResults.RPC_S_SERVER_TOO_BUSY, HNS_UNAVAILABLE_CAUSE, HNS_UNAVAILABLE_FIX),
            row(HResults.RPC_S_UNKNOWN_IF, HNS_UNAVAILABLE_CAUSE, HNS_UNAVAILABLE_FIX),
            row(HResults.EPT_S_NOT_REGISTERED, HNS_UNAVAILABLE_CAUSE, HNS_UNAVAILABLE_FIX),
            row(HResults.RPC_S_CALL_FAILED_DNE, HNS_UNAVAILABLE_CAUSE, HNS_UNAVAILABLE_FIX),
            row(HResults.RPC_S_CALL_FAILED, HNS_UNAVAILABLE_CAUSE + "; the call may have been carried out",
                    HNS_UNAVAILABLE_FIX + "; the next sync re-reads the host, so a create that did happen is"
                            + " adopted"),
            row(HResults.RPC_E_DISCONNECTED, HNS_UNAVAILABLE_CAUSE + "; the call may have been carried out",
                    HNS_UNAVAILABLE_FIX + "; the next sync re-reads the host, so a create that did happen is"
                            + " adopted"));

    private HnsErrors() {
    }

    /**
     * What an HRESULT means on a node.
     *
     * @param hresult    the code
     * @param name       its symbolic name ({@link HResults#name}), or its hex form when unknown
     * @param cause      the likely cause on a node, one sentence without a trailing period
     * @param fix        what to do: a command, a flag or a docs section
     * @param errorLabel kubernetes#137766's {@code error} label: {@code network_not_found}, {@code
     *                   port_already_exists}, {@code not_implemented}, {@code invalid_ip} or {@code other}
     */
    public record Diagnosis(int hresult, String name, String cause, String fix, String errorLabel) {
        /** {@code 0x803b0013}: lower-case hex, as kube-proxy's (Go's) error text prints it. */
        public String hex() {
            return String.format(Locale.ROOT, "0x%08x", hresult);
        }

        /** {@code hresult=0x803b0013 cause="..."}: the key/values every log line about a failed HNS call carries. */
        public String logValue() {
            return "hresult=" + hex() + " cause=" + quote(cause);
        }

        /** {@code 0x803B0013 HCN_E_PORT_ALREADY_EXISTS: <cause>. Fix: <fix>}: one line for Events and text output. */
        public String summary() {
            return HResults.describe(hresult) + ": " + cause + ". Fix: " + fix;
        }
    }

    /** The diagnosis of {@code hresult}; a code winproxy does not know gets the generic row of its class. */
    public static Diagnosis diagnose(int hresult) {
        Row r = ROWS.get(hresult);
        String name = HResults.name(hresult);
        if (r != null) {
            return new Diagnosis(hresult, name, r.cause(), r.fix(), label(hresult));
        }
        return new Diagnosis(hresult, name, genericCause(hresult), genericFix(hresult), label(hresult));
    }

    /** The diagnosis of a failed call's HRESULT. */
    public static Diagnosis diagnose(HnsException e) {
        return diagnose(e.hresult());
    }

    /** {@code hresult=0x803b0013 cause="..."} for {@code hresult}. */
    public static String logValue(int hresult) {
        return diagnose(hresult).logValue();
    }

    /** Whether {@code hresult} has a row of its own (a code met in public issues) rather than a generic one. */
    public static boolean hasOwnRow(int hresult) {
        return ROWS.containsKey(hresult);
    }

    /** kubernetes#137766's {@code error} label of {@code hresult}. */
    public static String label(int hresult) {
        if (hresult == HResults.HCN_E_NETWORK_NOT_FOUND) {
            return LABEL_NETWORK_NOT_FOUND;
        }
        if (hresult == HResults.HCN_E_PORT_ALREADY_EXISTS) {
            return LABEL_PORT_ALREADY_EXISTS;
        }
        if (hresult == HResults.E_NOTIMPL) {
            return LABEL_NOT_IMPLEMENTED;
        }
        if (hresult == HResults.HCN_E_INVALID_IP) {
            return LABEL_INVALID_IP;
        }
        return LABEL_OTHER;
    }

    private static String genericCause(int hresult) {
        String meaning = HResults.message(hresult).map(m -> m.substring(0, 1).toLowerCase(Locale.ROOT)
                + m.substring(1)).orElse("an HRESULT winproxy has no description for");
        if (HResults.isServiceUnavailable(hresult)) {
            return HNS_UNAVAILABLE_CAUSE;
        }
        if (HResults.isNotFound(hresult)) {
            return meaning + ": the object the call names is gone (deleted behind winproxy's back or by an HNS"
                    + " restart)";
        }
        if (HResults.isAlreadyExists(hresult)) {
            return meaning + ": an object with this identity exists already (a leftover or another creator)";
        }
        if (HResults.isInvalidArgument(hresult)) {
            return meaning + ": HNS rejected the document (retrying the same document cannot succeed)";
        }
        return "HNS reported: " + meaning;
    }

    private static String genericFix(int hresult) {
        if (HResults.isServiceUnavailable(hresult)) {
            return HNS_UNAVAILABLE_FIX;
        }
        if (HResults.isNotFound(hresult)) {
            return "nothing: the next sync re-reads the host and re-creates what is missing";
        }
        if (HResults.isAlreadyExists(hresult)) {
            return "find the holder with 'winproxy hns list'; after kube-proxy, 'winproxy cleanup --all'";
        }
        if (HResults.isInvalidArgument(hresult)) {
            return "'winproxy plan -o json' shows the document; 'winproxy check --probe-hns'";
        }
        return "'winproxy hns explain' on the error record or log line; see " + DOC;
    }

    private static Map.Entry<Integer, Row> row(int hresult, String cause, String fix) {
        return Map.entry(hresult, new Row(cause, fix));
    }

    private static String quote(String s) {
        StringBuilder out = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                default -> out.append(c);
            }
        }
        return out.append('"').toString();
    }

    private record Row(String cause, String fix) {
    }
}
