/**
 * The pure policy core of winproxy (no I/O, threads or clock; slf4j-api only). Data flows through it in this order:
 * {@link io.winproxy.policy.tracking} (change trackers and the atomic {@code ProxyState}), {@link
 * io.winproxy.policy.topology} (endpoint selection), {@link io.winproxy.policy.desired} (the desired load balancers
 * and remote endpoints, extended through {@link io.winproxy.policy.spi}), {@link io.winproxy.policy.plan} (desired x
 * observed -> ordered steps) and {@link io.winproxy.policy.trace} (packet tracer). See docs/policy.md.
 */
package io.winproxy.policy;
