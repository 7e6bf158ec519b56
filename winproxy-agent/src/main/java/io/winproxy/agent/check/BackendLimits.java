package io.winproxy.agent.check;

import io.winproxy.hns.HnsClient;
import io.winproxy.policy.desired.PolicyConfig;
import java.nio.file.Path;

/** Where {@code check} takes the most backends one load balancer may have from. */
final class BackendLimits {
    private BackendLimits() {
    }

    /** The policy's own cap, until a limit is learnt on this node. */
    static Capacity.BackendLimit of(HnsClient hns, Path stateDir) {
        return new Capacity.BackendLimit(PolicyConfig.DEFAULT_MAX_BACKENDS, "winproxy's default; no limit learnt on"
                + " this node: winproxy check --probe-hns");
    }
}
