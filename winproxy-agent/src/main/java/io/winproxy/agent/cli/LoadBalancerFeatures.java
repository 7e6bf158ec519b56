package io.winproxy.agent.cli;

import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.hns.HnsCapabilities;
import io.winproxy.policy.spi.LoadBalancerFeature;
import java.util.ArrayList;
import java.util.List;

/**
 * The load-balancer features of the policy, in the order they are consulted. Each feature is one line here (the
 * DSR feature of the {@code dsr} module goes here when it is available).
 */
final class LoadBalancerFeatures {
    private LoadBalancerFeatures() {
    }

    static List<LoadBalancerFeature> of(ProxyConfig config, HnsCapabilities capabilities) {
        List<LoadBalancerFeature> features = new ArrayList<>();
        return features;
    }
}
