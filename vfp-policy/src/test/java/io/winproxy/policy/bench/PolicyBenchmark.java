package io.winproxy.policy.bench;

import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.desired.NodeNetwork;
import io.winproxy.policy.desired.PolicyCalculator;
import io.winproxy.policy.desired.PolicyConfig;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.plan.ObservedState;
import io.winproxy.policy.plan.Ownership;
import io.winproxy.policy.plan.Plan;
import io.winproxy.policy.plan.PlanCalculator;
import io.winproxy.policy.tracking.EndpointsChangeTracker;
import io.winproxy.policy.tracking.ProxyState;
import io.winproxy.policy.tracking.ServiceChangeTracker;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The policy engine's cost at cluster scale (issue 4, docs/performance.md): {@code servicePorts} service ports with
 * {@code endpointsPerPort} endpoints each, spread over {@link BenchCluster#NODES} nodes of an overlay network.
 *
 * <ul>
 *   <li>{@link #desiredStateFromScratch}: a fresh {@link PolicyCalculator} computes the whole desired state (the
 *       first sync after a restart).</li>
 *   <li>{@link #incrementalAfterOneEndpointChange}: one endpoint of one Service flips readiness; the trackers
 *       apply the change and the warm calculator recomputes (every later sync).</li>
 *   <li>{@link #incrementalAfterOneLocalEndpointChange}: the HNS endpoint of one pod on this node comes or goes, so
 *       the node network differs in one local endpoint IP.</li>
 *   <li>{@link #listsAfterOneEndpointChange}: the same, then the full load-balancer and remote-endpoint lists of
 *       the new state (which it assembles on first use).</li>
 *   <li>{@link #planForConvergedHost}: the plan of the full desired state against a host that already holds it
 *       (every periodic resync); it must have no steps, which the setup checks.</li>
 * </ul>
 *
 * <p>Not a test: run it with {@code mvn -q -pl vfp-policy -Pbench test-compile exec:exec} (never part of
 * {@code mvn verify}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class PolicyBenchmark {
    @Param("10000")
    int servicePorts;

    @Param("10")
    int endpointsPerPort;

    private BenchCluster cluster;
    private NodeNetwork node;
    private NodeNetwork nodeWithoutOnePod;
    private ProxyState state;
    private PolicyCalculator warm;
    private ServiceChangeTracker serviceChanges;
    private EndpointsChangeTracker endpointChanges;
    private DesiredState desired;
    private ObservedState converged;
    private Ownership ownership;
    private int flip;

    @Setup(Level.Trial)
    public void setUp() {
        cluster = new BenchCluster(servicePorts, endpointsPerPort);
        node = cluster.node();
        nodeWithoutOnePod = cluster.node(0);
        serviceChanges = new ServiceChangeTracker();
        endpointChanges = new EndpointsChangeTracker(BenchCluster.THIS_NODE, java.time.Instant.EPOCH);
        cluster.services().forEach(s -> serviceChanges.update(null, s));
        for (int i = 0; i < servicePorts; i++) {
            endpointChanges.update(null, cluster.slice(i, false));
        }
        state = new ProxyState();
        state.applyChanges(serviceChanges, endpointChanges);
        warm = new PolicyCalculator(PolicyConfig.defaults(), List.of());
        desired = warm.calculate(state, node);
        if (desired.loadBalancers().size() < servicePorts) {
            throw new IllegalStateException("expected at least " + servicePorts + " load balancers, got "
                    + desired.loadBalancers().size() + "; warnings: " + desired.warnings());
        }
        converged = ObservedState.fromDesired(desired, node);
        ownership = new Ownership(
                converged.loadBalancers().stream().map(lb -> lb.id()).collect(java.util.stream.Collectors.toSet()),
                converged.endpoints().stream().filter(ep -> ep.remote()).map(ep -> ep.id())
                        .collect(java.util.stream.Collectors.toSet()));
        Plan plan = PlanCalculator.plan(desired, converged, ownership, true);
        if (!plan.steps().isEmpty()) {
            throw new IllegalStateException("a converged host must plan no steps, got " + plan.steps().size());
        }
    }

    @Benchmark
    public DesiredState desiredStateFromScratch() {
        return new PolicyCalculator(PolicyConfig.defaults(), List.of()).calculate(state, node);
    }

    @Benchmark
    public DesiredState incrementalAfterOneEndpointChange() {
        int service = (flip / 2) % servicePorts;
        boolean notReady = flip % 2 == 0;
        flip++;
        EndpointSliceInfo before = cluster.slice(service, !notReady);
        EndpointSliceInfo after = cluster.slice(service, notReady);
        endpointChanges.update(before, after);
        state.applyChanges(serviceChanges, endpointChanges);
        return oneRecomputed(warm.calculate(state, node), "one endpoint change");
    }

    /**
     * The local HNS endpoint of one pod on this node comes or goes (the CNI made or removed it): only the node
     * network changes, and the calculator recomputes the one service port with that endpoint.
     */
    @Benchmark
    public DesiredState incrementalAfterOneLocalEndpointChange() {
        NodeNetwork next = flip++ % 2 == 0 ? nodeWithoutOnePod : node;
        return oneRecomputed(warm.calculate(state, next), "one local endpoint change");
    }

    /**
     * {@link #incrementalAfterOneEndpointChange}, then the full lists, as a consumer that reads them every sync (the
     * plan of today) does; the state assembles them on first use.
     */
    @Benchmark
    public int listsAfterOneEndpointChange() {
        DesiredState result = incrementalAfterOneEndpointChange();
        return result.loadBalancers().size() + result.remoteEndpoints().size();
    }

    /** {@code result}, after checking that the warm calculator recomputed exactly one service port for it. */
    private DesiredState oneRecomputed(DesiredState result, String change) {
        if (warm.lastRecomputedCount() != 1) {
            throw new IllegalStateException(change + " recomputed " + warm.lastRecomputedCount() + " service ports");
        }
        return result;
    }

    @Benchmark
    public Plan planForConvergedHost() {
        return PlanCalculator.plan(desired, converged, ownership, true);
    }
}
