package io.winproxy.agent.check;

import io.winproxy.agent.dataplane.HnsCapabilityFile;
import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsClient;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.policy.plan.HnsIds;
import io.winproxy.policy.plan.Ownership;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The capabilities group ({@code check --probe-hns}): what this HNS build does, learnt with scratch objects
 * ({@link ScratchObjects}: a TEST-NET frontend no Service uses, winproxy's mark in their IDs) on the node's network,
 * never touching another object, all deleted afterwards even when a step fails. It learns whether a caller-chosen GUID
 * is honoured, replaced or refused (for a remote endpoint and a load balancer), what an open and a delete of an
 * unknown ID answer, whether read-back adds flags, what a second load balancer on a taken frontend gets, the largest
 * backend count one load balancer accepts (64, 65, 256, 1024, 5000, then a bisection below 64: at most about ten
 * creates), whether a modify takes effect, and whether a DSR load balancer is accepted. What was learnt goes to
 * {@code hns-capabilities.json} in the state directory ({@link HnsCapabilityFile}), where {@code hns list} shows it
 * and the agent reads the backend limit.
 *
 * <p>Why this class is long (~420 lines): every probe shares the scratch bookkeeping (the objects to delete, the next
 * free frontend port, what was learnt so far) and must run inside the one try/finally that deletes them; split into
 * classes, that state would be passed through each.
 */
public final class HnsProbe {
    private static final CheckGroup G = CheckGroup.capabilities;
    static final String SOURCE = "winproxy check --probe-hns";
    static final int[] SIZES = {64, 65, 256, 1024, 5000};
    private static final int MAX_SEARCH_CREATES = 10;
    /** The provider address of the scratch remote endpoints on overlay (TEST-NET-1, no node). */
    static final String PROVIDER_ADDRESS = "192.0.2.254";

    private final HnsClient hns;
    private final HostComputeNetwork network;
    private final Supplier<String> newId;
    private final List<CheckResult> out = new ArrayList<>();
    private final List<String> loadBalancers = new ArrayList<>();
    private final List<String> endpoints = new ArrayList<>();
    private HnsCapabilityFile learnt;
    private int port = ScratchObjects.FIRST_PORT;

    /**
     * @param newId the GUIDs offered to HNS (winproxy's mark: {@link HnsIds#newId})
     */
    public HnsProbe(HnsClient hns, HostComputeNetwork network, Supplier<String> newId) {
        this.hns = hns;
        this.network = network;
        this.newId = newId;
    }

    /** Probes, deletes every scratch object, and keeps what was learnt in {@code stateDir} (when it exists). */
    public List<CheckResult> run(Path stateDir, Instant now) {
        learnt = HnsCapabilityFile.read(stateDir).orElse(HnsCapabilityFile.NONE);
        List<String> leftovers = ScratchObjects.sweep(hns, network.id(), Ownership.NONE);
        if (!leftovers.isEmpty()) {
            out.add(CheckResult.pass(G, "leftovers", "deleted " + leftovers.size() + " scratch objects an earlier"
                    + " probe left behind: " + leftovers));
        }
        try {
            probe(now);
        } catch (HnsException e) {
            out.add(CheckResult.fail(G, "probe", "the probe stopped: " + HnsErrorText.of(e), "HNS refused a scratch"
                    + " object the proxy's own objects resemble", "docs/troubleshooting.md#probe-hns"));
        } finally {
            cleanUp();
        }
        if (Files.isDirectory(stateDir)) {
            try {
                HnsCapabilityFile.write(stateDir, learnt);
                out.add(CheckResult.pass(G, "saved", "what was learnt is kept in " + HnsCapabilityFile.file(stateDir)));
            } catch (IOException e) {
                out.add(CheckResult.warn(G, "saved", "cannot write " + HnsCapabilityFile.file(stateDir) + ": "
                        + e.getMessage(), "the state directory is not writable",
                        "docs/troubleshooting.md#state-directory"));
            }
        } else {
            out.add(CheckResult.warn(G, "saved", "state directory " + stateDir + " does not exist: nothing kept",
                    "the proxy has not run with it", "run the probe again after the proxy started"
                            + " (docs/troubleshooting.md#probe-hns)"));
        }
        return out;
    }

    private void probe(Instant now) {
        String pa = network.isOverlay() ? PROVIDER_ADDRESS : null;
        String ep = chosenEndpoint(pa);
        if (ep == null) {
            return;
        }
        chosenLoadBalancer(ep);
        unknownId();
        duplicateFrontend(ep);
        backendLimit(ep, now);
        HostComputeEndpoint second = hns.createEndpoint(network.id(),
                ScratchObjects.endpoint(null, network.id(), ScratchObjects.ENDPOINT_IP_2, pa));
        endpoints.add(second.id());
        modify(ep, second.id());
        dsr(ep);
    }

    /** A remote endpoint with a chosen GUID: honoured, replaced or refused. Returns the scratch endpoint's ID. */
    private String chosenEndpoint(String pa) {
        String chosen = newId.get();
        String outcome;
        try {
            hns.createEndpoint(network.id(), ScratchObjects.endpoint(chosen, network.id(),
                    ScratchObjects.ENDPOINT_IP_1, pa));
            outcome = null;
        } catch (HnsException e) {
            outcome = "refused: " + HnsErrorText.code(e.hresult());
            HostComputeEndpoint plain = hns.createEndpoint(network.id(), ScratchObjects.endpoint(null, network.id(),
                    ScratchObjects.ENDPOINT_IP_1, pa));
            endpoints.add(plain.id());
        }
        Optional<HostComputeEndpoint> found = hns.listEndpoints(network.id()).stream()
                .filter(ScratchObjects::isScratch)
                .filter(e -> ScratchObjects.ENDPOINT_IP_1.equals(e.ipAddress().orElse(""))).findFirst();
        if (found.isEmpty()) {
            out.add(CheckResult.fail(G, "endpoint-id", "a remote endpoint created on " + network.name() + " cannot be"
                    + " found by its IP", "HNS lost or hid the object", "docs/troubleshooting.md#probe-hns"));
            return null;
        }
        String actual = found.get().id();
        if (!endpoints.contains(actual)) {
            endpoints.add(actual);
        }
        if (outcome == null) {
            outcome = actual.equalsIgnoreCase(chosen) ? "honoured" : "replaced by HNS's own ID";
        }
        learnt = learnt.withProbe("endpointCallerId", outcome);
        out.add(idResult("endpoint-id", "remote endpoint", outcome, chosen, actual));
        return actual;
    }

    /** A load balancer with a chosen GUID; its read-back flags. */
    private void chosenLoadBalancer(String ep) {
        String chosen = newId.get();
        int p = port++;
        String outcome;
        try {
            hns.createLoadBalancer(ScratchObjects.loadBalancer(chosen, List.of(ep), p, 0));
            outcome = null;
        } catch (HnsException e) {
            outcome = "refused: " + HnsErrorText.code(e.hresult());
            loadBalancers.add(hns.createLoadBalancer(ScratchObjects.loadBalancer(null, List.of(ep), p, 0)).id());
        }
        HostComputeLoadBalancer found = findLoadBalancer(p).orElse(null);
        if (found == null) {
            out.add(CheckResult.fail(G, "load-balancer-id", "a load balancer created on " + ScratchObjects.VIP + ":"
                    + p + " cannot be found by its frontend", "HNS lost or hid the object",
                    "docs/troubleshooting.md#probe-hns"));
            return;
        }
        if (outcome == null) {
            outcome = found.id().equalsIgnoreCase(chosen) ? "honoured" : "replaced by HNS's own ID";
        }
        learnt = learnt.withProbe("loadBalancerCallerId", outcome);
        out.add(idResult("load-balancer-id", "load balancer", outcome, chosen, found.id()));
        int extraLb = found.flags();
        int extraPm = found.portMapping().map(pm -> pm.flags()).orElse(0);
        String flags = extraLb == 0 && extraPm == 0 ? "echoes the flags written"
                : String.format(Locale.ROOT, "adds load balancer flags 0x%x and port-mapping flags 0x%x that were"
                + " never written", extraLb, extraPm);
        learnt = learnt.withProbe("readBackFlags", flags);
        out.add(CheckResult.pass(G, "read-back-flags", "read-back of a load balancer " + flags
                + (extraLb == 0 && extraPm == 0 ? "" : " (winproxy judges its own objects by its journal, not by"
                + " read-back)")));
        delete(found.id());
    }

    /** An open and a delete of an ID nothing has. */
    private void unknownId() {
        String unknown = newId.get();
        String open;
        try {
            open = hns.getLoadBalancer(unknown).isEmpty() ? "reads as not found" : "finds an object (!)";
        } catch (HnsException e) {
            open = "fails with " + HnsErrorText.code(e.hresult());
        }
        String delete;
        boolean deleteNotFound;
        try {
            hns.deleteLoadBalancer(unknown);
            delete = "answers S_OK";
            deleteNotFound = true;
        } catch (HnsException e) {
            deleteNotFound = e.isNotFound();
            delete = "fails with " + HnsErrorText.code(e.hresult()) + (deleteNotFound ? " (read as not found)"
                    : " (not one of the not-found codes winproxy knows)");
        }
        learnt = learnt.withProbe("openUnknownId", open).withProbe("deleteUnknownId", delete);
        String message = "an open of an unknown load balancer ID " + open + "; a delete " + delete;
        out.add(deleteNotFound ? CheckResult.pass(G, "unknown-id", message)
                : CheckResult.warn(G, "unknown-id", message, "this HNS build answers 'no such object' with a code"
                        + " winproxy does not read as not found", "report it with 'winproxy check --probe-hns -o json'"
                        + " (docs/troubleshooting.md#probe-hns)"));
    }

    /** A second load balancer on a taken frontend: the code HNS answers. */
    private void duplicateFrontend(String ep) {
        int p = port++;
        HostComputeLoadBalancer first = hns.createLoadBalancer(ScratchObjects.loadBalancer(null, List.of(ep), p, 0));
        loadBalancers.add(first.id());
        String outcome;
        try {
            HostComputeLoadBalancer second = hns.createLoadBalancer(ScratchObjects.loadBalancer(null, List.of(ep), p,
                    0));
            loadBalancers.add(second.id());
            outcome = "is accepted: two load balancers share one frontend";
        } catch (HnsException e) {
            outcome = "fails with " + HnsErrorText.code(e.hresult());
        }
        learnt = learnt.withProbe("duplicateFrontend", outcome);
        out.add(CheckResult.pass(G, "duplicate-frontend", "a second load balancer on a taken frontend " + outcome));
        findAll(p).forEach(this::delete);
    }

    /** The largest number of backends one load balancer accepts, by the bounded search. */
    private void backendLimit(String ep, Instant now) {
        Optional<Integer> repeated = tryBackends(ep, 2);
        if (repeated.isPresent()) {
            out.add(CheckResult.warn(G, "backend-limit", "the backend limit cannot be measured: HNS refuses a"
                            + " destination listed twice (" + HnsErrorText.code(repeated.get()) + ")",
                    "the probe measures with one scratch endpoint listed N times",
                    "the profile's limit stays in use (docs/troubleshooting.md#backend-limit)"));
            learnt = learnt.withProbe("repeatedDestination", "refused: " + HnsErrorText.code(repeated.get()));
            return;
        }
        int creates = 1;
        int largestOk = 1;
        int refusedAt = -1;
        for (int n : SIZES) {
            Optional<Integer> code = tryBackends(ep, n);
            creates++;
            if (code.isEmpty()) {
                largestOk = n;
                continue;
            }
            if (code.get() != HResults.E_INVALIDARG) {
                out.add(CheckResult.warn(G, "backend-limit", "a load balancer with " + n + " backends failed with "
                                + HnsErrorText.code(code.get()) + ": the limit is not known",
                        "a failure that is not about the number of destinations", "run the probe again; "
                                + HnsErrorText.of(code.get()) + " (docs/troubleshooting.md#backend-limit)"));
                return;
            }
            refusedAt = n;
            break;
        }
        if (refusedAt == SIZES[0]) {
            int lo = 1;
            int hi = SIZES[0] - 1;
            while (lo < hi && creates < MAX_SEARCH_CREATES) {
                int mid = (lo + hi + 1) / 2;
                creates++;
                if (tryBackends(ep, mid).isEmpty()) {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            largestOk = lo;
        }
        String message;
        if (refusedAt < 0) {
            message = "one load balancer accepts " + largestOk + " backends (winproxy's own cap; larger is not"
                    + " probed)";
        } else if (refusedAt == largestOk + 1 || refusedAt == SIZES[0]) {
            message = "one load balancer accepts at most " + largestOk + " backends (" + refusedAt + " fail with"
                    + " E_INVALIDARG 'invalid number of destinations')";
        } else {
            message = "one load balancer accepts " + largestOk + " backends and refuses " + refusedAt
                    + " (E_INVALIDARG): " + largestOk + " is used as the limit";
        }
        learnt = learnt.withMaxBackends(largestOk, SOURCE, now).withProbe("maxBackendsSearch", message + "; "
                + creates + " creates");
        out.add(CheckResult.pass(G, "backend-limit", message + "; the agent programs larger Services with this"
                + " many backends"));
    }

    /** Creates (and deletes) a load balancer with {@code n} references to {@code ep}; the HRESULT if refused. */
    private Optional<Integer> tryBackends(String ep, int n) {
        int p = port++;
        try {
            HostComputeLoadBalancer lb = hns.createLoadBalancer(ScratchObjects.loadBalancer(null,
                    java.util.Collections.nCopies(n, ep), p, 0));
            loadBalancers.add(lb.id());
            delete(lb.id());
            return Optional.empty();
        } catch (HnsException e) {
            findAll(p).forEach(this::delete);
            return Optional.of(e.hresult());
        }
    }

    /** Whether a modify of the backends takes effect. */
    private void modify(String ep, String second) {
        int p = port++;
        HostComputeLoadBalancer lb = hns.createLoadBalancer(ScratchObjects.loadBalancer(null, List.of(ep), p, 0));
        loadBalancers.add(lb.id());
        String outcome;
        CheckStatus status = CheckStatus.PASS;
        try {
            hns.modifyLoadBalancer(lb.id(), ScratchObjects.loadBalancer(lb.id(), List.of(second), p, 0));
            List<String> now = hns.getLoadBalancer(lb.id()).map(HostComputeLoadBalancer::hostComputeEndpoints)
                    .orElse(List.of()).stream().map(HnsIds::normalize).toList();
            if (now.equals(List.of(HnsIds.normalize(second)))) {
                outcome = "takes effect";
            } else if (now.equals(List.of(HnsIds.normalize(ep)))) {
                outcome = "answers S_OK and keeps the old backends (kubernetes#131466)";
                status = CheckStatus.WARN;
            } else {
                outcome = "answers S_OK and leaves backends " + now;
                status = CheckStatus.WARN;
            }
        } catch (HnsException e) {
            outcome = e.isNotImplemented() ? "is not implemented (E_NOTIMPL, HNS below 15.4)"
                    : "fails with " + HnsErrorText.code(e.hresult());
        }
        learnt = learnt.withProbe("modify", outcome);
        boolean announced = hns.capabilities().modifyLoadBalancer();
        if (!announced && status == CheckStatus.WARN) {
            // As the version says: winproxy never modifies on this HNS (15.4 keeps the old backends).
            status = CheckStatus.PASS;
        }
        String message = "a modify of a load balancer's backends " + outcome + " (HNS "
                + hns.capabilities().version() + (announced ? " announces modify)" : " does not announce modify)");
        out.add(status == CheckStatus.PASS ? CheckResult.pass(G, "modify", message + (outcome.equals("takes effect")
                        && announced ? "" : "; winproxy replaces load balancers (delete and create) instead"))
                : CheckResult.warn(G, "modify", message, "this HNS build does not honour an in-place modify",
                        "nothing: winproxy sees it on read-back and replaces load balancers instead"
                                + " (docs/troubleshooting.md#probe-hns)"));
        delete(lb.id());
    }

    /** Whether a DSR load balancer is accepted. */
    private void dsr(String ep) {
        int p = port++;
        String outcome;
        try {
            HostComputeLoadBalancer lb = hns.createLoadBalancer(ScratchObjects.loadBalancer(null, List.of(ep), p,
                    HostComputeLoadBalancer.FLAG_DSR));
            loadBalancers.add(lb.id());
            outcome = "accepted";
            delete(lb.id());
        } catch (HnsException e) {
            outcome = "refused: " + HnsErrorText.code(e.hresult());
            findAll(p).forEach(this::delete);
        }
        learnt = learnt.withProbe("dsr", outcome);
        boolean versionSays = hns.capabilities().dsr();
        boolean accepted = outcome.equals("accepted");
        String message = "a DSR load balancer is " + outcome + " (HNS " + hns.capabilities().version()
                + (versionSays ? " announces DSR)" : " does not announce DSR)");
        out.add(accepted == versionSays ? CheckResult.pass(G, "dsr", message)
                : CheckResult.warn(G, "dsr", message, "the HNS version and its behaviour disagree",
                        accepted ? "nothing: winproxy follows the version" : "do not use --enable-dsr on this node"
                                + " (docs/troubleshooting.md#probe-hns)"));
    }

    private CheckResult idResult(String check, String what, String outcome, String chosen, String actual) {
        String message = "a " + what + " created with the GUID " + chosen + ": " + outcome
                + (outcome.startsWith("replaced") ? " (" + actual + ")" : "");
        if (outcome.equals("honoured")) {
            return CheckResult.pass(G, check, message);
        }
        return CheckResult.warn(G, check, message, "this HNS build does not keep a caller's GUID",
                "nothing: winproxy then lets HNS choose and finds its objects by their frontend and journal; its"
                        + " IDs lose winproxy's mark (docs/troubleshooting.md#probe-hns)").on(actual);
    }

    private Optional<HostComputeLoadBalancer> findLoadBalancer(int p) {
        return findAllDocs(p).stream().findFirst();
    }

    private List<String> findAll(int p) {
        return findAllDocs(p).stream().map(HostComputeLoadBalancer::id).toList();
    }

    private List<HostComputeLoadBalancer> findAllDocs(int p) {
        return hns.listLoadBalancers().stream().filter(ScratchObjects::isScratch)
                .filter(lb -> lb.portMapping().map(pm -> pm.externalPort() == p).orElse(false)).toList();
    }

    private void delete(String id) {
        hns.deleteLoadBalancer(id);
        loadBalancers.removeIf(id::equalsIgnoreCase);
    }

    /** Deletes what is left, then makes sure no scratch object remains (a FAIL naming it otherwise). */
    private void cleanUp() {
        for (String id : List.copyOf(loadBalancers)) {
            try {
                delete(id);
            } catch (HnsException e) {
                if (!e.isNotFound()) {
                    out.add(CheckResult.fail(G, "cleanup", "cannot delete scratch load balancer " + id + ": "
                            + HnsErrorText.of(e), "HNS refused the delete", "the next probe or the agent's start"
                            + " deletes it (docs/troubleshooting.md#probe-hns)").on(id));
                }
            }
        }
        ScratchObjects.sweep(hns, network.id(), Ownership.NONE);
        endpoints.clear();
        List<String> left = new ArrayList<>();
        hns.listLoadBalancers().stream().filter(ScratchObjects::isScratch).forEach(lb -> left.add(lb.id()));
        hns.listEndpoints(network.id()).stream().filter(ScratchObjects::isScratch).forEach(ep -> left.add(ep.id()));
        if (left.isEmpty()) {
            out.add(CheckResult.pass(G, "cleanup", "every scratch object was deleted"));
        } else {
            out.add(CheckResult.fail(G, "cleanup", "scratch objects are left: " + left, "HNS refused their delete",
                    "the next 'winproxy check --probe-hns' or the agent's start deletes them; by hand: 'winproxy hns"
                            + " delete load-balancer|endpoint ID' (docs/troubleshooting.md#probe-hns)"));
        }
    }
}
