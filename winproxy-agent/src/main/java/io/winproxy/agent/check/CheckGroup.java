package io.winproxy.agent.check;

/**
 * The five groups of {@code winproxy check}, in the order they run and are printed. {@link #capabilities} and
 * {@link #reachability} run only when asked ({@code --probe-hns}, {@code --probe-traffic}): the first writes scratch
 * objects to HNS, the second sends connections.
 */
public enum CheckGroup {
    /** The node is fit to run the proxy: network, source VIP, host MAC, HNS version, state directory, API server. */
    preflight,
    /** What HNS does with scratch objects carrying winproxy's mark (writes; {@code --probe-hns}). */
    capabilities,
    /** What HNS holds against what the Services want (read only). */
    consistency,
    /** Backends per load balancer, the dynamic port pool, totals. */
    capacity,
    /** Connections to a sample of Services from the node ({@code --probe-traffic}). */
    reachability
}
