package io.winproxy.agent.dataplane;

import io.winproxy.policy.desired.PolicyConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The most backends winproxy gives one load balancer on this node, and where that number comes from: the flag
 * {@code --hns-max-backends-per-load-balancer} (wins, unless HNS refuses it), else what the node taught ({@link HnsCapabilityFile}, written by
 * {@code winproxy check --probe-hns} or by this class when a create failed for the limit), else winproxy's own bound
 * ({@link PolicyConfig#DEFAULT_MAX_BACKENDS}). Never above that bound. The policy cuts larger Services to it
 * (docs/policy.md, "Backends per load balancer").
 *
 * <p>Written by the sync thread; read by any (volatile).
 */
public final class BackendLimit {
    private static final Logger logger = LoggerFactory.getLogger(BackendLimit.class);
    /** The flag that configures the limit. */
    public static final String FLAG = "--hns-max-backends-per-load-balancer";
    /**
     * The smallest limit HNS is known to have: Windows Server 2019 refuses more than 64 destinations with
     * {@code E_INVALIDARG} (kubernetes#98680). A refusal is read as the limit only above it, and probing starts there.
     */
    public static final int KNOWN_LIMIT = 64;

    private final Path stateDir;
    private final Clock clock;
    private volatile boolean configured;
    private volatile int value;
    private volatile String source;

    private BackendLimit(Path stateDir, Clock clock, Integer configured) {
        this.stateDir = stateDir;
        this.clock = clock;
        this.configured = configured != null;
        if (configured != null) {
            set(configured, "configured (" + FLAG + ")");
            return;
        }
        HnsCapabilityFile learnt = HnsCapabilityFile.read(stateDir).orElse(HnsCapabilityFile.NONE);
        if (learnt.maxBackendsPerLoadBalancer() != null) {
            set(learnt.maxBackendsPerLoadBalancer(), "learnt (" + learnt.source()
                    + (learnt.learntAt() == null ? "" : ", " + learnt.learntAt()) + ", kept in "
                    + HnsCapabilityFile.FILE_NAME + ")");
        } else {
            set(PolicyConfig.DEFAULT_MAX_BACKENDS, "winproxy's default");
        }
    }

    /**
     * The limit of a state directory (null: none, nothing kept).
     *
     * @param configured the flag's value, or null when not given
     */
    public static BackendLimit of(Path stateDir, Integer configured) {
        return new BackendLimit(stateDir, Clock.systemUTC(), configured);
    }

    private void set(int limit, String from) {
        this.value = Math.min(limit, PolicyConfig.DEFAULT_MAX_BACKENDS);
        this.source = from;
    }

    /** The most backends one load balancer gets. */
    public int value() {
        return value;
    }

    /** Where {@link #value()} comes from, for the start line and logs. */
    public String source() {
        return source;
    }

    /** The flag's value (null: not given, the limit stays as loaded). */
    public void configure(Integer limit) {
        if (limit != null) {
            configured = true;
            set(limit, "configured (" + FLAG + ")");
        }
    }

    /** Whether the flag set the limit (then only a lower limit HNS shows replaces it). */
    public boolean configured() {
        return configured;
    }

    /**
     * HNS showed that it takes at most {@code limit} backends: used from now on and kept in the state directory for
     * the next start (the probe results kept there stay).
     */
    void learnt(int limit, String how) {
        // Lower only: a configured limit HNS refuses cannot be honoured either.
        if (limit >= value) {
            return;
        }
        set(limit, "learnt (" + how + ")");
        if (stateDir == null) {
            return;
        }
        HnsCapabilityFile kept = HnsCapabilityFile.read(stateDir).orElse(HnsCapabilityFile.NONE)
                .withMaxBackends(limit, how, clock.instant());
        try {
            HnsCapabilityFile.write(stateDir, kept);
        } catch (IOException e) {
            logger.atWarn().setMessage("Cannot keep the backend limit HNS showed").addKeyValue("dir", stateDir)
                    .addKeyValue("err", e.getMessage()).log();
        }
    }

    @Override
    public String toString() {
        return value + " " + source;
    }
}
