package io.winproxy.dsr;

import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.HnsFlags;
import io.winproxy.policy.desired.LoadBalancerKind;
import io.winproxy.policy.desired.PolicyWarning;
import io.winproxy.policy.model.ServicePortInfo;
import io.winproxy.policy.spi.LoadBalancerFeature;
import io.winproxy.policy.spi.ServicePortContext;
import java.util.ArrayList;
import java.util.List;

/**
 * Direct Server Return as a {@link LoadBalancerFeature}, with upstream winkernel's rules (winkernel-semantics §2.1,
 * §3.3-§3.4):
 * <ul>
 *   <li>ClusterIP load balancers get the DSR flag when DSR is enabled ({@code --enable-dsr});</li>
 *   <li>{@code externalTrafficPolicy: Local} implies DSR on the NodePort, external-IP and ingress load balancers
 *       whenever HNS supports DSR, even without {@code --enable-dsr} (the client IP is preserved only with DSR);</li>
 *   <li>the {@code preserve-destination: "true"} annotation gives DSR plus UseMux|PreserveDIP on ingress load
 *       balancers, UseMux|PreserveDIP on their health-check load balancers, and local-only backends on the NodePort
 *       and ingress load balancers;</li>
 *   <li>health-check load balancers are never DSR;</li>
 *   <li>with both traffic policies Local, endpoints on other nodes are not programmed at all.</li>
 * </ul>
 * The per-service rules need HNS DSR support; without it they are skipped with a warning on the Service, as upstream
 * forces {@code localTrafficDSR} and {@code preserveDIP} off. Stateless and pure.
 */
public final class DirectServerReturn implements LoadBalancerFeature {
    /** The flags preserve-destination adds to ingress and health-check port mappings (UseMux | PreserveDIP = 12). */
    static final int PRESERVE_DIP_FLAGS = HnsFlags.PM_USE_MUX | HnsFlags.PM_PRESERVE_DIP;

    private final DsrSettings settings;

    public DirectServerReturn(DsrSettings settings) {
        this.settings = settings;
    }

    @Override
    public String name() {
        return "dsr";
    }

    /** ETP=Local with HNS DSR support (upstream's {@code localTrafficDSR}). */
    private boolean localTrafficDsr(ServicePortInfo service) {
        return settings.hnsSupportsDsr() && service.externalPolicyLocal();
    }

    /** The preserve-destination annotation with HNS DSR support (upstream's {@code preserveDIP}). */
    private boolean preserveDip(ServicePortInfo service) {
        return settings.hnsSupportsDsr() && service.preserveDestination();
    }

    @Override
    public boolean excludeRemoteEndpoints(ServicePortContext context) {
        return localTrafficDsr(context.service()) && context.service().internalPolicyLocal();
    }

    @Override
    public boolean localBackendsOnly(ServicePortContext context, LoadBalancerKind kind) {
        return preserveDip(context.service())
                && (kind == LoadBalancerKind.NODE_PORT || kind == LoadBalancerKind.LOAD_BALANCER_INGRESS);
    }

    @Override
    public DesiredLoadBalancer adjust(ServicePortContext context, DesiredLoadBalancer loadBalancer) {
        ServicePortInfo service = context.service();
        boolean dsr = switch (loadBalancer.kind()) {
            case CLUSTER_IP -> settings.enabled();
            case NODE_PORT, EXTERNAL_IP -> localTrafficDsr(service);
            case LOAD_BALANCER_INGRESS -> localTrafficDsr(service) || preserveDip(service);
            case HEALTH_CHECK -> false;
        };
        int portMappingFlags = loadBalancer.portMappingFlags();
        if (preserveDip(service) && (loadBalancer.kind() == LoadBalancerKind.LOAD_BALANCER_INGRESS
                || loadBalancer.kind() == LoadBalancerKind.HEALTH_CHECK)) {
            portMappingFlags |= PRESERVE_DIP_FLAGS;
        }
        int flags = dsr ? loadBalancer.flags() | HnsFlags.LB_DSR : loadBalancer.flags() & ~HnsFlags.LB_DSR;
        if (flags == loadBalancer.flags() && portMappingFlags == loadBalancer.portMappingFlags()) {
            return loadBalancer;
        }
        return loadBalancer.withFlags(flags, portMappingFlags);
    }

    @Override
    public List<PolicyWarning> warnings(ServicePortContext context) {
        if (settings.hnsSupportsDsr()) {
            return List.of();
        }
        ServicePortInfo service = context.service();
        List<PolicyWarning> warnings = new ArrayList<>();
        if (service.externalPolicyLocal() && hasExternalLoadBalancers(service)) {
            warnings.add(warning(service, "DsrUnsupported", "externalTrafficPolicy Local without HNS DSR support:"
                    + " external traffic goes to local endpoints without DSR, so the client IP is not preserved"));
        }
        if (service.preserveDestination()) {
            warnings.add(warning(service, "DsrUnsupported", "annotation preserve-destination is ignored: this"
                    + " host's HNS does not support DSR"));
        }
        return warnings;
    }

    private static boolean hasExternalLoadBalancers(ServicePortInfo service) {
        return service.nodePort() > 0 || !service.externalIps().isEmpty() || !service.loadBalancerIps().isEmpty();
    }

    private static PolicyWarning warning(ServicePortInfo service, String reason, String message) {
        return new PolicyWarning("Service", service.name().namespace(), service.name().name(), reason, message);
    }
}
