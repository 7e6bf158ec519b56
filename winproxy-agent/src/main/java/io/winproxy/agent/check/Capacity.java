package io.winproxy.agent.check;

import io.winproxy.hns.emulator.HnsLimits;
import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.plan.ObservedState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The capacity group: backends per load balancer against the most one load balancer takes (learnt by
 * {@code --probe-hns}, else the HNS profile's), non-DSR load balancers against the node's dynamic port pool (each
 * reserves {@value #PORTS_PER_LOAD_BALANCER} ports; WARN from 80%), and the totals. Names every Service that would be
 * cut, and by how much.
 */
public final class Capacity {
    private static final CheckGroup G = CheckGroup.capacity;
    /** The ports one non-DSR load balancer reserves from the dynamic pool (kubernetes/website#17930). */
    public static final int PORTS_PER_LOAD_BALANCER = HnsLimits.PORTS_PER_LOAD_BALANCER;
    static final int WARN_PERCENT = 80;

    /**
     * @param desired      this node's desired state
     * @param observed     the host as observed; null when it was not read (the agent's start-up check on a large
     *                     host): totals then name what is wanted only
     * @param backendLimit the most backends one load balancer takes, and where that number comes from
     * @param ports        the dynamic port pool: its size and the ports in use, when known
     */
    public record Inputs(DesiredState desired, ObservedState observed, BackendLimit backendLimit,
                         Optional<PortPool> ports) {
    }

    /** The backend limit and its source, e.g. {@code learnt by winproxy check --probe-hns}. */
    public record BackendLimit(int max, String source) {
    }

    /** The dynamic port pool: {@code size} ports, {@code inUse} reserved now (by what, when known), its source. */
    public record PortPool(int size, int inUse, String source) {
    }

    private Capacity() {
    }

    public static List<CheckResult> run(Inputs in) {
        List<CheckResult> out = new ArrayList<>();
        backends(in, out);
        ports(in, out);
        String wanted = in.desired().loadBalancers().size() + " load balancers and "
                + in.desired().remoteEndpoints().size() + " remote endpoints wanted";
        if (in.observed() == null) {
            out.add(CheckResult.pass(G, "totals", wanted));
            return out;
        }
        long remote = in.observed().endpoints().stream().filter(e -> e.remote()).count();
        out.add(CheckResult.pass(G, "totals", in.observed().loadBalancers().size() + " load balancers and " + remote
                + " remote endpoints on the host; " + wanted));
        return out;
    }

    private static void backends(Inputs in, List<CheckResult> out) {
        BackendLimit limit = in.backendLimit();
        List<DesiredLoadBalancer> over = in.desired().loadBalancers().stream()
                .filter(lb -> lb.backends().size() > limit.max()).toList();
        for (DesiredLoadBalancer lb : over) {
            out.add(CheckResult.fail(G, "backends", lb.service() + " (" + lb.key() + ") has " + lb.backends().size()
                            + " backends; one load balancer takes at most " + limit.max() + " (" + limit.source()
                            + "): " + (lb.backends().size() - limit.max()) + " would be cut",
                    "HNS refuses a load balancer with more destinations (E_INVALIDARG 'invalid number of"
                            + " destinations', kubernetes#98680)", "scale the Service down to " + limit.max()
                            + " ready endpoints, or spread it over several Services"
                            + " (docs/troubleshooting.md#backend-limit)").about(lb.service().toString()));
        }
        if (over.isEmpty()) {
            int largest = in.desired().loadBalancers().stream().mapToInt(lb -> lb.backends().size()).max().orElse(0);
            String which = in.desired().loadBalancers().stream()
                    .max(Comparator.comparingInt(lb -> lb.backends().size()))
                    .map(lb -> " (" + lb.service() + ")").orElse("");
            out.add(CheckResult.pass(G, "backends", "the largest load balancer has " + largest + " backends" + which
                    + "; the limit is " + limit.max() + " (" + limit.source() + ")"));
        }
    }

    private static void ports(Inputs in, List<CheckResult> out) {
        long nonDsr = in.desired().loadBalancers().stream().filter(lb -> !lb.dsr()).count();
        long wanted = nonDsr * PORTS_PER_LOAD_BALANCER;
        if (in.ports().isEmpty()) {
            out.add(CheckResult.pass(G, "port-pool", nonDsr + " non-DSR load balancers reserve about " + wanted
                    + " dynamic ports; the pool's size is not known on this host"));
            return;
        }
        PortPool pool = in.ports().get();
        long used = Math.max(pool.inUse(), wanted);
        long percent = pool.size() == 0 ? 100 : used * 100 / pool.size();
        String message = nonDsr + " non-DSR load balancers reserve about " + used + " of " + pool.size()
                + " dynamic ports (" + percent + "%, " + pool.source() + ")";
        String fix = "widen the range (netsh int ipv4 set dynamicport tcp start=... num=...), or use DSR"
                + " (--enable-dsr) which reserves none (docs/troubleshooting.md#port-pool)";
        if (used > pool.size()) {
            out.add(CheckResult.fail(G, "port-pool", message, "the pool is exhausted: further load balancer creates"
                    + " fail (HCN_E_PORT_ALREADY_EXISTS)", fix));
        } else if (percent >= WARN_PERCENT) {
            out.add(CheckResult.warn(G, "port-pool", message, "the pool is nearly exhausted", fix));
        } else {
            out.add(CheckResult.pass(G, "port-pool", message));
        }
    }
}
