package io.winproxy.policy.desired;

import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.Protocol;

/**
 * The identity of a load balancer on a host: family + frontend VIP (empty for the VIP-less NodePort kind) +
 * protocol + external port. Two load balancers with one key cannot coexist in HNS (0x803B0013).
 */
public record LoadBalancerKey(IpFamily family, String frontendVip, Protocol protocol, int externalPort) {
    public LoadBalancerKey {
        frontendVip = frontendVip == null ? "" : frontendVip;
    }

    @Override
    public String toString() {
        String vip = frontendVip.isEmpty() ? "*" : (family == IpFamily.IPV6 ? "[" + frontendVip + "]" : frontendVip);
        return vip + ":" + externalPort + "/" + protocol;
    }
}
