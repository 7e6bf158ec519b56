package io.winproxy.agent.check;

import io.winproxy.agent.dataplane.BackendLimit;
import io.winproxy.agent.dataplane.HnsCapabilityFile;
import io.winproxy.hns.HnsClient;
import io.winproxy.hns.emulator.EchoProfile;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.emulator.HnsLimits;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Where {@code check} takes the most backends one load balancer may have from: the flag
 * {@code --hns-max-backends-per-load-balancer} (the agent's own limit then: {@link BackendLimit}), else what this node
 * taught ({@code hns-capabilities.json}, learnt by {@code --probe-hns} or a failed create), else the emulated host's
 * limit, else the profile of the node's HNS version (Windows Server 2019: 64, kubernetes#98680; later: 1024).
 */
final class BackendLimits {
    private BackendLimits() {
    }

    /**
     * @param configured the flag's value, or null when not given
     */
    static Capacity.BackendLimit of(HnsClient hns, Path stateDir, Integer configured) {
        if (configured != null) {
            BackendLimit agents = BackendLimit.of(null, configured);
            return new Capacity.BackendLimit(agents.value(), agents.source());
        }
        Optional<HnsCapabilityFile> learnt = HnsCapabilityFile.read(stateDir);
        if (learnt.isPresent() && learnt.get().maxBackendsPerLoadBalancer() != null) {
            HnsCapabilityFile f = learnt.get();
            return new Capacity.BackendLimit(f.maxBackendsPerLoadBalancer(), "learnt by " + f.source()
                    + (f.learntAt() == null ? "" : " at " + f.learntAt()));
        }
        if (hns instanceof HnsEmulator emulator) {
            return new Capacity.BackendLimit(emulator.limits().maxDestinationsPerLoadBalancer(),
                    "the emulated HNS " + emulator.version() + "'s limit");
        }
        EchoProfile profile = EchoProfile.forVersion(hns.capabilities().version());
        return new Capacity.BackendLimit(HnsLimits.maxDestinations(profile), "the limit reported for "
                + profile + " (HNS " + hns.capabilities().version() + "); learn this node's with winproxy check"
                + " --probe-hns");
    }
}
