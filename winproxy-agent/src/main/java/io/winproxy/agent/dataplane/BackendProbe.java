package io.winproxy.agent.dataplane;

import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsException;
import io.winproxy.policy.desired.BackendCut;
import io.winproxy.policy.desired.DesiredLoadBalancer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a load balancer within the node's {@link BackendLimit}, and learns the limit when HNS refuses a write for it.
 * A write with more backends than the limit is made with the limit's number ({@link BackendCut}: this node's endpoints
 * first, then by IP), as the policy will cut it from the next sync on. A refusal is read as the limit only when it is
 * {@code E_INVALIDARG} for a load balancer with more than {@link BackendLimit#KNOWN_LIMIT} backends, and for a create
 * only when HNS also refused the same document without a chosen ID (the code is classified, never the message): the
 * write is then retried with fewer backends ({@link #candidates}: 1024 when more were refused, then
 * {@value BackendLimit#KNOWN_LIMIT}, then half as many), at most {@value #MAX_PROBES} times; the first that succeeds is the limit learnt (kept in the state directory). When none
 * does, the first refusal is thrown: the document is at fault, not the number of backends.
 */
final class BackendProbe {
    private static final Logger logger = LoggerFactory.getLogger(BackendProbe.class);
    /** Extra writes a refusal may cost to learn the limit (each may be two HNS calls under chosen IDs). */
    static final int MAX_PROBES = 3;

    private final BackendLimit limit;

    BackendProbe(BackendLimit limit) {
        this.limit = limit;
    }

    /**
     * Writes {@code desired} within the limit through {@code write} (which throws {@link HnsException} when HNS
     * refuses) and returns the load balancer as written.
     *
     * @param localIps this node's endpoint IPs (asked only when a cut is needed)
     * @param create   whether {@code write} creates (a refusal then counts only when HNS chose the ID)
     */
    DesiredLoadBalancer write(DesiredLoadBalancer desired, Supplier<Set<String>> localIps, boolean create,
                              Consumer<DesiredLoadBalancer> write, boolean idsChosen) {
        DesiredLoadBalancer first = cut(desired, limit.value(), localIps);
        try {
            write.accept(first);
            return first;
        } catch (HnsException e) {
            if (!isLimitRefusal(e, first.backends().size(), create, idsChosen)) {
                throw e;
            }
            int size = first.backends().size();
            for (int k : candidates(size)) {
                DesiredLoadBalancer smaller = cut(desired, k, localIps);
                try {
                    write.accept(smaller);
                } catch (HnsException again) {
                    if (again.hresult() != HResults.E_INVALIDARG) {
                        throw again;
                    }
                    continue;
                }
                learnt(desired, size, k);
                return smaller;
            }
            throw e;
        }
    }

    /**
     * The sizes to try below a refused one, largest first: the limits public sources give (1024, documented by
     * Amazon EKS for its Windows nodes; 64 on Windows Server 2019), then halving; at most {@value #MAX_PROBES}.
     */
    static List<Integer> candidates(int refused) {
        List<Integer> out = new ArrayList<>(MAX_PROBES);
        if (refused > 1024) {
            out.add(1024);
        }
        for (int k = BackendLimit.KNOWN_LIMIT; k >= 1 && out.size() < MAX_PROBES; k /= 2) {
            out.add(k);
        }
        return out;
    }

    private static boolean isLimitRefusal(HnsException e, int backends, boolean create, boolean idsChosen) {
        return e.hresult() == HResults.E_INVALIDARG && backends > BackendLimit.KNOWN_LIMIT
                && (!create || !idsChosen || e instanceof DocumentRefusedException);
    }

    private static DesiredLoadBalancer cut(DesiredLoadBalancer desired, int max, Supplier<Set<String>> localIps) {
        if (desired.backends().size() <= max) {
            return desired;
        }
        Set<String> local = new HashSet<>(localIps.get());
        return desired.withBackends(BackendCut.keep(desired.backends(), local::contains, max));
    }

    private void learnt(DesiredLoadBalancer desired, int refused, int accepted) {
        String how = "create failure: HNS refused " + refused + " backends for " + desired.key() + " with "
                + HResults.describe(HResults.E_INVALIDARG) + " and took " + accepted;
        limit.learnt(accepted, how);
        logger.atWarn().setMessage("HNS refused a load balancer for its number of backends; winproxy programs at most "
                + "the number it accepted from now on, this node's endpoints first (kept in "
                + HnsCapabilityFile.FILE_NAME + ")").addKeyValue("service", desired.service())
                .addKeyValue("loadBalancer", desired.key()).addKeyValue("refused", refused)
                .addKeyValue("limit", accepted).addKeyValue("cut", desired.backends().size() - accepted).log();
    }
}
