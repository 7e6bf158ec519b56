package io.winproxy.agent.check;

import io.winproxy.agent.cli.OfflineModel;
import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.trace.Packet;
import io.winproxy.policy.trace.PacketTracer;
import io.winproxy.policy.trace.TraceResult;
import io.winproxy.policy.trace.Verdict;

/**
 * Probes an emulated host through the packet tracer: a packet from the node to the frontend, through what HNS holds
 * (the documents of the candidate load balancers read, as {@code trace} reads them). Health checks are served by the
 * proxy's own listener, not by HNS, and are not modelled.
 */
final class TracedProber implements Reachability.Prober {
    private final OfflineModel model;

    TracedProber(OfflineModel model) {
        this.model = model;
    }

    @Override
    public boolean modelled() {
        return true;
    }

    @Override
    public Reachability.Outcome connect(DesiredLoadBalancer lb, String ip, int port) {
        Packet packet = new Packet(model.node().nodeIp(IpFamily.IPV4), ip, port, lb.key().protocol());
        TraceResult r = PacketTracer.trace(model.withLoadBalancersRead(port, lb.key().protocol()), model.node(),
                packet, model.snapshot().desired());
        if (r.verdict() == Verdict.FORWARDED) {
            return new Reachability.Outcome(true, "forwarded to " + String.join(", ", r.sortedBackends()));
        }
        return new Reachability.Outcome(false, r.verdict().jsonName()
                + (r.explanation().isEmpty() ? "" : " (" + r.explanation().get(r.explanation().size() - 1) + ")"));
    }

    @Override
    public Reachability.Outcome healthCheck(String ip, int port) {
        return null;
    }
}
