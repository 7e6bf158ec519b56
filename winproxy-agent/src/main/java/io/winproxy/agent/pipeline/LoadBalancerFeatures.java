package io.winproxy.agent.pipeline;

import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.dsr.DirectServerReturn;
import io.winproxy.dsr.DsrSettings;
import io.winproxy.hns.HnsCapabilities;
import io.winproxy.policy.spi.LoadBalancerFeature;
import java.util.ArrayList;
import java.util.List;

/** The load-balancer features of the policy, in the order they are consulted; adding one is one line here. */
public final class LoadBalancerFeatures {
    private LoadBalancerFeatures() {
    }

    /**
     * The checks of {@link #of} that need no HNS: {@code --enable-dsr} with the {@code WinDSR} gate off.
     *
     * @throws io.winproxy.dsr.DsrConfigurationException naming the gate
     */
    public static void checkGates(ProxyConfig config) {
        DsrSettings.resolve(config.enableDsr(), config.featureGates().enabled(DsrSettings.WIN_DSR_GATE), true, "");
    }

    /**
     * @throws io.winproxy.dsr.DsrConfigurationException when {@code --enable-dsr} cannot be honoured (the
     *                                                    {@code WinDSR} gate is off, or HNS lacks DSR)
     */
    public static List<LoadBalancerFeature> of(ProxyConfig config, HnsCapabilities capabilities) {
        List<LoadBalancerFeature> features = new ArrayList<>();
        features.add(new DirectServerReturn(DsrSettings.resolve(config.enableDsr(),
                config.featureGates().enabled(DsrSettings.WIN_DSR_GATE), capabilities.dsr(),
                capabilities.version().toString())));
        return features;
    }
}
