package io.winproxy.policy.testing;

import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.HnsFlags;
import io.winproxy.policy.desired.LoadBalancerKind;
import io.winproxy.policy.model.TrafficPolicy;
import io.winproxy.policy.spi.LoadBalancerFeature;
import io.winproxy.policy.spi.ServicePortContext;

/**
 * A minimal in-test DSR feature expressing upstream's DSR rules through the SPI (the real one is the dsr module's):
 * ClusterIP LBs get DSR with {@code --enable-dsr}; ETP=Local gives DSR on NodePort, external-IP and ingress LBs when
 * HNS supports DSR; preserve-destination gives DSR + UseMux|PreserveDIP on ingress and local-only NodePort/ingress
 * backends; health checks are never DSR; ITP=Local with ETP=Local programs no remote endpoints.
 */
public final class TestDsrFeature implements LoadBalancerFeature {
    private final boolean enableDsr;

    public TestDsrFeature(boolean enableDsr) {
        this.enableDsr = enableDsr;
    }

    @Override
    public String name() {
        return "test-dsr";
    }

    private static boolean localTrafficDsr(ServicePortContext ctx) {
        return ctx.config().hnsSupportsDsr() && ctx.service().externalTrafficPolicy() == TrafficPolicy.LOCAL;
    }

    private static boolean preserveDip(ServicePortContext ctx) {
        return ctx.config().hnsSupportsDsr() && ctx.service().preserveDestination();
    }

    @Override
    public boolean excludeRemoteEndpoints(ServicePortContext ctx) {
        return localTrafficDsr(ctx) && ctx.service().internalPolicyLocal();
    }

    @Override
    public boolean localBackendsOnly(ServicePortContext ctx, LoadBalancerKind kind) {
        return preserveDip(ctx)
                && (kind == LoadBalancerKind.NODE_PORT || kind == LoadBalancerKind.LOAD_BALANCER_INGRESS);
    }

    @Override
    public DesiredLoadBalancer adjust(ServicePortContext ctx, DesiredLoadBalancer lb) {
        int flags = lb.flags();
        int pm = lb.portMappingFlags();
        switch (lb.kind()) {
            case CLUSTER_IP -> flags |= enableDsr && ctx.config().hnsSupportsDsr() ? HnsFlags.LB_DSR : 0;
            case NODE_PORT, EXTERNAL_IP -> flags |= localTrafficDsr(ctx) ? HnsFlags.LB_DSR : 0;
            case LOAD_BALANCER_INGRESS -> {
                flags |= localTrafficDsr(ctx) || preserveDip(ctx) ? HnsFlags.LB_DSR : 0;
                pm |= preserveDip(ctx) ? HnsFlags.PM_USE_MUX | HnsFlags.PM_PRESERVE_DIP : 0;
            }
            case HEALTH_CHECK -> pm |= preserveDip(ctx) ? HnsFlags.PM_USE_MUX | HnsFlags.PM_PRESERVE_DIP : 0;
            default -> {
            }
        }
        return lb.withFlags(flags, pm);
    }
}
