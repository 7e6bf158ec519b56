package io.winproxy.policy.spi;

import io.winproxy.policy.desired.NodeNetwork;
import io.winproxy.policy.desired.PolicyConfig;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.ServicePortInfo;

/** What a {@link LoadBalancerFeature} sees about the service port (in one IP family) being computed. */
public record ServicePortContext(ServicePortInfo service, IpFamily family, NodeNetwork node, PolicyConfig config) {
}
