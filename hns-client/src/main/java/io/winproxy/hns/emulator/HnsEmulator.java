package io.winproxy.hns.emulator;

import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsCapabilities;
import io.winproxy.hns.HnsClient;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.HnsFeatures;
import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.NativeCallListener;
import io.winproxy.hns.NetworkSession;
import io.winproxy.hns.emulator.EmulatorRules.RuleViolation;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.hns.model.SchemaVersion;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An in-memory Host Networking Service that behaves like the real one towards an {@link HnsClient} user: unique
 * bare lower-case GUIDs (or the caller's), the HRESULTs of {@link EmulatorRules}, version-gated features (default HNS
 * 15.4), a {@link CallJournal} that counts native-level calls exactly as the JNA binding makes them, per-call latency
 * and fault injection ({@link FaultInjector}, persisted with the state file), HNS restarts with outage and delayed
 * rehydration ({@link #restartHns(HnsRestart)}), read-back as a Windows Server release echoes it
 * ({@link EchoProfile}), plausible HNS behaviours switched on in addition ({@link HnsVariant}, persisted with the
 * state file), and an optional state file shared between processes.
 *
 * <p>Native call sequences (each call journaled and reported to the {@link #setNativeCallListener listener}):
 * <ul>
 *   <li>lists of documents: enumerate + N x (open, query, close); {@link #listLoadBalancerIds()} and
 *       {@link #listEndpointIds(String)}: one enumerate;</li>
 *   <li>{@link #getEndpoint} and {@link #getLoadBalancer}: open by GUID, query, close (an unknown ID: one failed
 *       open, no close); {@link #getNetworkById} and {@link #getNetworkByName}: filtered enumerate + open, query,
 *       close of the match;</li>
 *   <li>create load balancer: create, query, close; with a caller-chosen ID: create, close;</li>
 *   <li>create endpoint: open network, create, query (not with a caller-chosen ID), close endpoint, close network;
 *       on a {@link #openNetwork network session} the network is opened and closed once per session;</li>
 *   <li>modify load balancer: open, modify, query, close; delete: one delete by ID.</li>
 * </ul>
 *
 * <p>IDs must be GUIDs (braces and any letter case accepted); anything else is refused with an
 * {@link IllegalArgumentException} before any native call, as hcsshim and the JNA binding do.
 *
 * <p>Per-call cost is O(1) or O(log n) in the number of objects (the store keeps indexes; see
 * {@link EmulatorStore}), enumerations O(result), so a host of 100,000 objects is emulated at full speed.
 *
 * <p>Thread-safe: operations are serialized. With a state file, each operation takes an exclusive file lock, reads
 * what other processes appended to the change log since its last operation, and appends its own changes (see
 * {@link StateFile}). The host side (networks and CNI-owned local endpoints) is driven through {@link EmulatedHost},
 * whose actions are not journaled: the journal counts what the HNS client under test did.
 *
 * <p>Why this class is long (~800 lines): it is the single place where each operation of the {@link HnsClient}
 * contract (about twenty) and each emulator control (faults, latency, version, variants, restart, rehydration) is
 * serialized, journaled, fault-checked and persisted. The work behind them already lives elsewhere (rules in
 * {@link EmulatorRules}, objects and indexes in {@link EmulatorStore}, faults in {@link FaultInjector}, call
 * accounting in {@link NativeCalls}, persistence in {@link StateFile}); what is left is one short method per
 * operation plus the {@link Builder}, and splitting those would scatter the one lock that makes them atomic.
 */
public final class HnsEmulator implements HnsClient {
    private static final Logger logger = LoggerFactory.getLogger(HnsEmulator.class);
    private static final Pattern GUID = Pattern.compile(
            "\\{?[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}}?");
    private static final String ZERO_GUID = "00000000-0000-0000-0000-000000000000";

    private final EmulatorStore store;
    private final StateFile stateFile;
    private final CallJournal journal = new CallJournal();
    private final FaultInjector faults;
    private final NativeCalls calls;
    private final Clock clock;
    /** The configured read-back profile; null: the profile of the emulated version. */
    private volatile EchoProfile echo;
    /** Nesting depth of {@link #operate} on the thread holding this monitor. */
    private int operating;

    private HnsEmulator(Builder b) {
        this.store = new EmulatorStore(b.version == null ? HnsVersion.WINDOWS_SERVER_2025 : b.version,
                b.seed == null ? new SecureRandom() : new Random(b.seed));
        this.clock = b.clock;
        this.faults = new FaultInjector(new FaultInjector.Host(this::updateFaults, store::faults, clock));
        this.calls = new NativeCalls(journal, faults);
        this.echo = b.echo;
        this.stateFile = b.stateFile == null ? null : new StateFile(b.stateFile, b.compactMinBytes);
        if (stateFile != null) {
            store.recordChanges();
            // Adopt the file's content; an explicitly configured version (or latency) overrides the file's and is
            // saved.
            operate(true, () -> {
                if (b.version != null) {
                    store.setVersion(b.version);
                }
                return null;
            });
        }
        if (!b.latency.isZero()) {
            faults.latency(b.latency);
        }
        if (b.variants != null) {
            setVariants(b.variants);
        }
    }

    /** An in-memory emulator of HNS 15.4 (Windows Server 2025). */
    public static HnsEmulator inMemory() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * An emulator on an existing state file (for read-mostly commands such as {@code hns list}, which must not
     * invent an empty host). Throws {@link IllegalArgumentException} naming the file when it does not exist.
     */
    public static HnsEmulator openExisting(Path stateFile) {
        if (!Files.isRegularFile(stateFile)) {
            throw new IllegalArgumentException("emulated HNS state file " + stateFile + " does not exist");
        }
        return builder().stateFile(stateFile).build();
    }

    /** Configuration of an emulator; every setting is optional. */
    public static final class Builder {
        private HnsVersion version;
        private Path stateFile;
        private Duration latency = Duration.ZERO;
        private Clock clock = Clock.systemUTC();
        private Long seed;
        private EchoProfile echo;
        private Set<HnsVariant> variants;
        private long compactMinBytes = StateFile.DEFAULT_COMPACT_MIN_BYTES;

        /** The emulated HNS version (default 15.4; with a state file, default: the file's version). */
        public Builder version(HnsVersion v) {
            this.version = v;
            return this;
        }

        /**
         * Share state with other processes through this JSON file (created when absent) and its change log
         * {@code FILE.log} (see docs/emulator.md).
         */
        public Builder stateFile(Path path) {
            this.stateFile = path;
            return this;
        }

        /**
         * Time every native-level call takes (default zero; with a state file, the file's). A non-zero value is saved
         * to the state file, like {@code hns fault set --latency}.
         */
        public Builder latency(Duration perCall) {
            this.latency = perCall == null ? Duration.ZERO : perCall;
            return this;
        }

        /** The wall clock of outages and delayed rehydration (default: the system clock). */
        public Builder clock(Clock c) {
            this.clock = c;
            return this;
        }

        /** Seed for the GUID generator, for reproducible IDs in tests (default: secure random). */
        public Builder seed(long s) {
            this.seed = s;
            return this;
        }

        /**
         * How read-back documents differ from what was stored (default: {@link EchoProfile#forVersion} of the
         * emulated version, the pessimistic choice; {@link EchoProfile#VERBATIM} returns documents as stored).
         */
        public Builder echo(EchoProfile profile) {
            this.echo = profile;
            return this;
        }

        /**
         * The {@link HnsVariant}s to switch on (default: none; with a state file, the file's). Given, they replace
         * the file's and are saved.
         */
        public Builder variants(HnsVariant... vs) {
            this.variants = vs.length == 0 ? Set.of() : EnumSet.copyOf(Arrays.asList(vs));
            return this;
        }

        /** The change log is compacted into the snapshot once it exceeds the snapshot and this size (default 1 MiB). */
        Builder compactMinBytes(long bytes) {
            this.compactMinBytes = bytes;
            return this;
        }

        public HnsEmulator build() {
            return new HnsEmulator(this);
        }
    }

    // ---- emulator controls -------------------------------------------------------------------------------------

    public CallJournal journal() {
        return journal;
    }

    public FaultInjector faults() {
        return faults;
    }

    /** The latency of every native call whose kind has none of its own. */
    public Duration latency() {
        return Duration.ofMillis(faults.settings().latencyMillis());
    }

    /** Sets the latency of every native call (persisted with a state file; see {@link FaultInjector#latency}). */
    public void setLatency(Duration perCall) {
        faults.latency(perCall);
    }

    public Optional<Path> stateFile() {
        return Optional.ofNullable(stateFile).map(StateFile::path);
    }

    public HnsVersion version() {
        return operate(false, store::version);
    }

    /** The read-back profile in effect: the configured one, else the profile of the emulated version. */
    public EchoProfile echo() {
        EchoProfile configured = echo;
        return configured != null ? configured : EchoProfile.forVersion(version());
    }

    /** Sets the read-back profile; null: the profile of the emulated version (the default). Not persisted. */
    public void setEcho(EchoProfile profile) {
        this.echo = profile;
    }

    /** The {@link HnsVariant}s switched on (with a state file: as last saved by any process); empty by default. */
    public Set<HnsVariant> variants() {
        return operate(false, store::variants);
    }

    /**
     * Switches exactly these {@link HnsVariant}s on (empty: none, the default profile only); saved to the state
     * file, so other processes on the file behave so from their next call.
     */
    public void setVariants(Set<HnsVariant> variants) {
        operate(true, () -> {
            store.setVariants(variants);
            return null;
        });
    }

    /** Emulates an HNS upgrade or downgrade; saved to the state file. */
    public void setVersion(HnsVersion v) {
        operate(true, () -> {
            store.setVersion(v);
            return null;
        });
    }

    /**
     * Emulates an HNS service restart: every load balancer and every remote endpoint is gone; networks and local
     * (CNI-owned) endpoints survive; nothing is kept for rehydration. Not journaled.
     */
    public void restartHns() {
        restartHns(HnsRestart.DROP);
    }

    /**
     * Emulates an HNS service restart as {@code restart} describes: load balancers and remote endpoints are dropped
     * (networks and local endpoints survive), every call fails with {@code ERROR_SERVICE_NOT_ACTIVE} for
     * {@link HnsRestart#down()}, and the dropped objects are kept to come back with their old IDs after
     * {@link HnsRestart#rehydrateAfter()} or on {@link #rehydrate()} (as real HNS restores the policies it persisted).
     * Saved to the state file. Not journaled.
     *
     * @return how many load balancers and remote endpoints were dropped
     */
    public HnsRestart.Counts restartHns(HnsRestart restart) {
        return operate(true, () -> {
            List<HostComputeLoadBalancer> lbs = List.copyOf(store.loadBalancers());
            lbs.forEach(lb -> store.removeLoadBalancer(lb.id()));
            List<HostComputeEndpoint> remote = store.endpoints().stream().filter(HostComputeEndpoint::isRemote)
                    .toList();
            remote.forEach(e -> store.removeEndpoint(e.id()));
            Instant now = clock.instant();
            if (!restart.down().isZero()) {
                store.setFaults(store.faults().withOutage(now.plus(restart.down()),
                        HResults.ERROR_SERVICE_NOT_ACTIVE));
            }
            if (restart.rehydration() != HnsRestart.Rehydration.NONE) {
                long due = restart.rehydration() == HnsRestart.Rehydration.ON_COMMAND ? 0
                        : Math.max(1, now.plus(restart.rehydrateAfter()).toEpochMilli());
                PendingRehydration dropped = new PendingRehydration(remote, lbs, due);
                PendingRehydration pending = store.rehydration();
                store.setRehydration(pending == null ? dropped : pending.plus(dropped));
            }
            logger.atInfo().setMessage("Emulated HNS restart dropped load balancers and remote endpoints")
                    .addKeyValue("loadBalancers", lbs.size()).addKeyValue("remoteEndpoints", remote.size())
                    .addKeyValue("rehydration", restart.rehydration() == HnsRestart.Rehydration.NONE ? "none"
                            : restart.rehydration() == HnsRestart.Rehydration.ON_COMMAND ? "on command"
                            : "in " + restart.rehydrateAfter().toMillis() + "ms").log();
            return new HnsRestart.Counts(lbs.size(), remote.size());
        });
    }

    /**
     * Restores now what earlier restarts kept for rehydration, with the old IDs: each remote endpoint whose ID is
     * free and whose network exists, then each load balancer whose ID is free (referencing the endpoints that
     * exist). HNS restores what it persisted as it was, so a restored load balancer may share its frontend with one
     * created since (the pessimistic choice: the client must clean up). Nothing pending: zero counts.
     */
    public HnsRestart.Counts rehydrate() {
        return operate(true, this::rehydrateNow);
    }

    /** What earlier restarts keep for rehydration, if anything. */
    public Optional<PendingRehydration> pendingRehydration() {
        return operate(false, () -> Optional.ofNullable(store.rehydration()));
    }

    private HnsRestart.Counts rehydrateNow() {
        PendingRehydration pending = store.rehydration();
        if (pending == null) {
            return new HnsRestart.Counts(0, 0);
        }
        store.setRehydration(null);
        int eps = 0;
        for (HostComputeEndpoint ep : pending.endpoints()) {
            if (!store.idInUse(ep.id()) && store.network(ep.hostComputeNetwork()).isPresent()) {
                store.put(ep);
                eps++;
            }
        }
        int lbs = 0;
        for (HostComputeLoadBalancer lb : pending.loadBalancers()) {
            if (!store.idInUse(lb.id())) {
                List<String> refs = lb.hostComputeEndpoints().stream()
                        .filter(id -> store.endpoint(id).isPresent()).toList();
                store.put(lb.withEndpoints(refs));
                lbs++;
            }
        }
        logger.atInfo().setMessage("Emulated HNS rehydrated load balancers and remote endpoints with their old IDs")
                .addKeyValue("loadBalancers", lbs).addKeyValue("remoteEndpoints", eps).log();
        return new HnsRestart.Counts(lbs, eps);
    }

    // ---- HnsClient ---------------------------------------------------------------------------------------------

    @Override
    public HnsCapabilities capabilities() {
        return HnsFeatures.forVersion(version());
    }

    @Override
    public List<HostComputeNetwork> listNetworks() {
        return operate(false, () -> calls.enumerate(HnsObjectKind.NETWORK,
                () -> store.networks().stream().map(HostComputeNetwork::id).toList(), this::readNetwork));
    }

    @Override
    public Optional<HostComputeNetwork> getNetworkByName(String name) {
        return operate(false, () -> calls.enumerate(HnsObjectKind.NETWORK,
                () -> store.networks().stream().filter(n -> n.name() != null && n.name().equalsIgnoreCase(name))
                        .map(HostComputeNetwork::id).toList(), this::readNetwork).stream().findFirst());
    }

    @Override
    public Optional<HostComputeNetwork> getNetworkById(String id) {
        requireGuid(id, "network");
        return operate(false, () -> calls.enumerate(HnsObjectKind.NETWORK,
                () -> store.network(id).map(n -> List.of(n.id())).orElse(List.of()), this::readNetwork)
                .stream().findFirst());
    }

    @Override
    public List<HostComputeEndpoint> listEndpoints(String networkId) {
        return operate(false, () -> calls.enumerate(HnsObjectKind.ENDPOINT, () -> store.endpointIdsOf(networkId),
                this::readEndpoint));
    }

    /** One {@code HcnEnumerateEndpoints} filtered by network; the IDs as the echo profile renders them. */
    @Override
    public List<String> listEndpointIds(String networkId) {
        requireGuid(networkId, "network");
        return operate(false, () -> {
            calls.call(HnsCall.ENUMERATE, HnsObjectKind.ENDPOINT);
            EchoProfile profile = currentEcho();
            return store.endpointIdsOf(networkId).stream().map(profile::id).toList();
        });
    }

    /** Open by GUID, query, close; an unknown ID is one failed open and an empty result. */
    @Override
    public Optional<HostComputeEndpoint> getEndpoint(String id) {
        requireGuid(id, "endpoint");
        return operate(false, () -> calls.openQueryClose(HnsObjectKind.ENDPOINT, id, this::readEndpoint));
    }

    @Override
    public HostComputeEndpoint createEndpoint(String networkId, HostComputeEndpoint settings) {
        requireGuid(networkId, "network");
        String chosen = chosenId(settings.id(), "endpoint");
        return operate(true, () -> {
            HostComputeNetwork network = calls.open(HnsObjectKind.NETWORK, networkId, store::network);
            try {
                return createEndpointOn(network.id(), settings, chosen);
            } finally {
                calls.call(HnsCall.CLOSE, HnsObjectKind.NETWORK);
            }
        });
    }

    /**
     * A session on an opened network: {@code HcnOpenNetwork} now (an unknown network fails here with
     * {@code ERROR_NOT_FOUND}), {@code HcnCloseNetwork} once on close, and per endpoint create only the endpoint's
     * create (+ query when HNS assigns the ID) and close.
     */
    @Override
    public NetworkSession openNetwork(String networkId) {
        requireGuid(networkId, "network");
        return operate(false, () -> {
            HostComputeNetwork network = calls.open(HnsObjectKind.NETWORK, networkId, store::network);
            return new Session(networkId, network.id());
        });
    }

    @Override
    public void deleteEndpoint(String id) {
        requireGuid(id, "endpoint");
        operate(true, () -> {
            calls.call(HnsCall.DELETE, HnsObjectKind.ENDPOINT);
            HostComputeEndpoint ep = store.endpoint(id).orElseThrow(() -> calls.notFound(HnsCall.DELETE,
                    HnsObjectKind.ENDPOINT, id));
            calls.checked(HnsCall.DELETE, HnsObjectKind.ENDPOINT, () -> {
                EmulatorRules.checkEndpointDelete(store, ep.id());
                return null;
            });
            store.removeEndpoint(ep.id());
            return null;
        });
    }

    @Override
    public List<String> listLoadBalancerIds() {
        return operate(false, () -> {
            calls.call(HnsCall.ENUMERATE, HnsObjectKind.LOAD_BALANCER);
            EchoProfile profile = currentEcho();
            List<String> ids = new ArrayList<>(store.loadBalancers().size());
            for (HostComputeLoadBalancer lb : store.loadBalancers()) {
                ids.add(profile.id(lb.id()));
            }
            return ids;
        });
    }

    @Override
    public List<HostComputeLoadBalancer> listLoadBalancers() {
        return operate(false, () -> calls.enumerate(HnsObjectKind.LOAD_BALANCER,
                () -> store.loadBalancers().stream().map(HostComputeLoadBalancer::id).toList(),
                this::readLoadBalancer));
    }

    /** Open by GUID, query, close; an unknown ID is one failed open and an empty result. */
    @Override
    public Optional<HostComputeLoadBalancer> getLoadBalancer(String id) {
        requireGuid(id, "load balancer");
        return operate(false, () -> calls.openQueryClose(HnsObjectKind.LOAD_BALANCER, id, this::readLoadBalancer));
    }

    @Override
    public HostComputeLoadBalancer createLoadBalancer(HostComputeLoadBalancer settings) {
        String chosen = chosenId(settings.id(), "load balancer");
        return operate(true, () -> {
            calls.call(HnsCall.CREATE, HnsObjectKind.LOAD_BALANCER);
            boolean honoured = chosen != null && !store.hasVariant(HnsVariant.IDS_IGNORED);
            calls.checked(HnsCall.CREATE, HnsObjectKind.LOAD_BALANCER, () -> {
                EmulatorRules.checkCallerIdAccepted(store, chosen);
                EmulatorRules.checkIdFree(store, honoured ? chosen : null);
                EmulatorRules.checkLoadBalancer(store, settings, null,
                        store.hasVariant(HnsVariant.DUPLICATE_FRONTEND));
                HnsLimits limits = currentLimits();
                EmulatorRules.checkDestinations(settings, limits.maxDestinationsPerLoadBalancer());
                EmulatorRules.checkPortPool(settings, limits);
                return null;
            });
            HostComputeLoadBalancer lb = normalized(settings).withId(honoured ? chosen : assignedId());
            store.put(lb);
            if (chosen != null) {
                // The binding does not query a create with a caller-chosen ID: it answers with that ID, also when
                // HNS used another one (ids-ignored).
                calls.call(HnsCall.CLOSE, HnsObjectKind.LOAD_BALANCER);
                return lb.withId(chosen);
            }
            try {
                calls.call(HnsCall.QUERY, HnsObjectKind.LOAD_BALANCER);
                return readBack(lb);
            } finally {
                calls.call(HnsCall.CLOSE, HnsObjectKind.LOAD_BALANCER);
            }
        });
    }

    /**
     * Open, modify, query, close. Below HNS 15.4 the modify fails with {@code E_NOTIMPL}. HNS 15.4 (Windows Server
     * 2025) accepts it but keeps the old {@code HostComputeEndpoints} while taking every other field
     * (kubernetes/kubernetes#131466), and the returned document shows the old endpoints; 15.5 and later replace the
     * whole document.
     */
    @Override
    public HostComputeLoadBalancer modifyLoadBalancer(String id, HostComputeLoadBalancer settings) {
        requireGuid(id, "load balancer");
        return operate(true, () -> {
            HostComputeLoadBalancer existing = calls.open(HnsObjectKind.LOAD_BALANCER, id, store::loadBalancer);
            try {
                calls.call(HnsCall.MODIFY, HnsObjectKind.LOAD_BALANCER);
                HnsVersion v = store.version();
                if (!v.isAtLeast(15, 4)) {
                    throw calls.failure(HnsCall.MODIFY, HnsObjectKind.LOAD_BALANCER, HResults.E_NOTIMPL,
                            "HcnModifyLoadBalancer is not implemented before HNS 15.4 (emulating " + v + ")");
                }
                if (store.hasVariant(HnsVariant.MODIFY_NOOP)) {
                    // S_OK, and nothing changes (modify-noop).
                    calls.call(HnsCall.QUERY, HnsObjectKind.LOAD_BALANCER);
                    return readBack(existing);
                }
                calls.checked(HnsCall.MODIFY, HnsObjectKind.LOAD_BALANCER, () -> {
                    EmulatorRules.checkLoadBalancer(store, settings, existing.id());
                    EmulatorRules.checkDestinations(settings, currentLimits().maxDestinationsPerLoadBalancer());
                    return null;
                });
                HostComputeLoadBalancer lb = normalized(settings).withId(existing.id());
                if (!v.isAtLeast(15, 5)) {
                    // HNS 15.4 keeps the endpoints it had (kubernetes/kubernetes#131466).
                    lb = lb.withEndpoints(existing.hostComputeEndpoints());
                }
                store.put(lb);
                calls.call(HnsCall.QUERY, HnsObjectKind.LOAD_BALANCER);
                return readBack(lb);
            } finally {
                calls.call(HnsCall.CLOSE, HnsObjectKind.LOAD_BALANCER);
            }
        });
    }

    @Override
    public void deleteLoadBalancer(String id) {
        requireGuid(id, "load balancer");
        operate(true, () -> {
            calls.call(HnsCall.DELETE, HnsObjectKind.LOAD_BALANCER);
            HostComputeLoadBalancer lb = store.loadBalancer(id).orElseThrow(() -> calls.notFound(HnsCall.DELETE,
                    HnsObjectKind.LOAD_BALANCER, id));
            store.removeLoadBalancer(lb.id());
            return null;
        });
    }

    @Override
    public void setNativeCallListener(NativeCallListener listener) {
        calls.setListener(listener);
    }

    /** An opened network handle for a batch of endpoint creates (see {@link #openNetwork}). */
    private final class Session implements NetworkSession {
        private final String networkId;
        private final String storedNetworkId;
        private boolean closed;

        Session(String networkId, String storedNetworkId) {
            this.networkId = networkId;
            this.storedNetworkId = storedNetworkId;
        }

        @Override
        public String networkId() {
            return networkId;
        }

        @Override
        public HostComputeEndpoint createEndpoint(HostComputeEndpoint settings) {
            String chosen = chosenId(settings.id(), "endpoint");
            synchronized (this) {
                if (closed) {
                    throw new IllegalStateException("the session on network " + networkId + " is closed");
                }
            }
            return operate(true, () -> createEndpointOn(storedNetworkId, settings, chosen));
        }

        @Override
        public void close() {
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
            }
            try {
                calls.call(HnsCall.CLOSE, HnsObjectKind.NETWORK);
            } catch (HnsException e) {
                logger.atDebug().setMessage("Emulated HcnCloseNetwork failed").addKeyValue("err", e.getMessage())
                        .log();
            }
        }
    }

    // ---- host side (used by EmulatedHost; not journaled, no faults, no latency) ---------------------------------

    /** Runs a host-side (CNI / operator) action on the store under the same lock and persistence as a call. */
    <T> T hostAction(Function<EmulatorStore, T> action) {
        return operate(true, () -> {
            try {
                return action.apply(store);
            } catch (RuleViolation v) {
                throw new HnsException(v.hresult, "host", calls.errorRecord(v.hresult, v.getMessage()));
            }
        });
    }

    // ---- internals ---------------------------------------------------------------------------------------------

    /**
     * Runs one operation: under the file lock with the state file brought up to date first and the changes saved
     * after (also when it fails: a create whose query failed did create); a due rehydration happens first. A write
     * carried out before an injected "may have completed" failure throws that failure at the end.
     */
    private synchronized <T> T operate(boolean mayWrite, Supplier<T> op) {
        operating++;
        try {
            calls.takeDeferred();
            if (stateFile == null) {
                T result = run(op);
                throwDeferred();
                return result;
            }
            T out = stateFile.locked(() -> {
                stateFile.refresh(store);
                T result;
                try {
                    result = run(op);
                } catch (RuntimeException | Error e) {
                    stateFile.commit(store, store.drainChanges(), false);
                    throw e;
                }
                stateFile.commit(store, store.drainChanges(), mayWrite);
                return result;
            });
            throwDeferred();
            return out;
        } finally {
            calls.takeDeferred();
            operating--;
        }
    }

    private <T> T run(Supplier<T> op) {
        PendingRehydration pending = store.rehydration();
        if (pending != null && pending.dueAt(clock.instant())) {
            rehydrateNow();
        }
        return op.get();
    }

    private void throwDeferred() {
        HnsException deferred = calls.takeDeferred();
        if (deferred != null) {
            throw deferred;
        }
    }

    /** Changes the fault settings: directly inside an operation (a consumed fault), else as an operation. */
    private synchronized void updateFaults(UnaryOperator<FaultSettings> change) {
        if (operating > 0) {
            store.setFaults(change.apply(store.faults()));
            return;
        }
        operate(false, () -> {
            store.setFaults(change.apply(store.faults()));
            return null;
        });
    }

    /** The store's state file, for tests of the persistence. */
    StateFile stateFileForTest() {
        return stateFile;
    }

    /** Compacts the state file's change log into its snapshot now (tests). */
    void compactStateFile() {
        operate(false, () -> {
            try {
                stateFile.compact(store);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return null;
        });
    }

    /** Endpoint create on an opened network: create (+ query when HNS assigns the ID), close endpoint. */
    private HostComputeEndpoint createEndpointOn(String networkId, HostComputeEndpoint settings, String chosen) {
        calls.call(HnsCall.CREATE, HnsObjectKind.ENDPOINT);
        HostComputeNetwork network = store.network(networkId).orElseThrow(() -> calls.failure(HnsCall.CREATE,
                HnsObjectKind.ENDPOINT, HResults.HCN_E_NETWORK_NOT_FOUND, "The network was deleted: " + networkId));
        boolean honoured = chosen != null && !store.hasVariant(HnsVariant.IDS_IGNORED);
        HostComputeEndpoint ep = calls.checked(HnsCall.CREATE, HnsObjectKind.ENDPOINT, () -> {
            EmulatorRules.checkCallerIdAccepted(store, chosen);
            EmulatorRules.checkIdFree(store, honoured ? chosen : null);
            return EndpointFactory.complete(store, network, settings, honoured || chosen == null ? chosen
                    : assignedId());
        });
        store.put(ep);
        if (chosen != null) {
            // As for load balancers: no query, the answer carries the caller's ID (see ids-ignored).
            calls.call(HnsCall.CLOSE, HnsObjectKind.ENDPOINT);
            return ep.withId(chosen);
        }
        try {
            calls.call(HnsCall.QUERY, HnsObjectKind.ENDPOINT);
            return currentEcho().endpoint(ep);
        } finally {
            calls.call(HnsCall.CLOSE, HnsObjectKind.ENDPOINT);
        }
    }

    /**
     * The host's capacity limits and what its load balancers use of them (see {@link HnsLimits}): for
     * {@code winproxy check}'s headroom and for tests.
     */
    public HnsLimits limits() {
        return operate(false, this::currentLimits);
    }

    /** The limits inside an operation: the fault settings' overrides, else the profile's. */
    private HnsLimits currentLimits() {
        FaultSettings f = store.faults();
        EchoProfile profile = currentEcho();
        int max = f.maxDestinations() != null ? f.maxDestinations()
                : HnsLimits.maxDestinations(profile == EchoProfile.VERBATIM ? EchoProfile.forVersion(store.version())
                        : profile);
        int pool = f.portPool() == null ? 0 : f.portPool();
        return new HnsLimits(max, pool, store.nonDsrLoadBalancers() * HnsLimits.PORTS_PER_LOAD_BALANCER);
    }

    /** The read-back profile inside an operation (the store's version is current there). */
    private EchoProfile currentEcho() {
        EchoProfile configured = echo;
        return configured != null ? configured : EchoProfile.forVersion(store.version());
    }

    private Optional<HostComputeNetwork> readNetwork(String id) {
        return store.network(id).map(currentEcho()::network);
    }

    private Optional<HostComputeEndpoint> readEndpoint(String id) {
        return store.endpoint(id).map(currentEcho()::endpoint);
    }

    private Optional<HostComputeLoadBalancer> readLoadBalancer(String id) {
        return store.loadBalancer(id).map(this::readBack);
    }

    /** A load balancer as read back: the echo profile, then the extra-flags variant's bits. */
    private HostComputeLoadBalancer readBack(HostComputeLoadBalancer lb) {
        HostComputeLoadBalancer echoed = currentEcho().loadBalancer(lb);
        return store.hasVariant(HnsVariant.EXTRA_FLAGS) ? HnsVariant.withExtraFlags(echoed) : echoed;
    }

    /**
     * The ID HNS gives a created object that keeps no caller ID: a fresh lower-case GUID, or under ids-ignored an
     * upper-case one (as HNS spells its own IDs).
     */
    private String assignedId() {
        String id = store.newId();
        return store.hasVariant(HnsVariant.IDS_IGNORED) ? id.toUpperCase(Locale.ROOT) : id;
    }

    /**
     * The caller-chosen ID of a create: null when none (null, blank or the zero GUID, with which HCN assigns one).
     *
     * @throws IllegalArgumentException when it is not a GUID (before any native call)
     */
    private static String chosenId(String id, String what) {
        if (id == null || id.isBlank()) {
            return null;
        }
        requireGuid(id, what);
        return EmulatorStore.key(id).equals(ZERO_GUID) ? null : id;
    }

    private static HostComputeLoadBalancer normalized(HostComputeLoadBalancer lb) {
        return lb.schemaVersion() != null ? lb : new HostComputeLoadBalancer(lb.id(), lb.hostComputeEndpoints(),
                lb.sourceVip(), lb.frontendVips(), lb.portMappings(), SchemaVersion.V2, lb.flags());
    }

    /**
     * Client-side ID check, as hcsshim and the JNA binding make it before any native call: not journaled.
     *
     * @throws IllegalArgumentException {@code invalid load balancer ID "x"} when {@code id} is not a GUID
     */
    private static void requireGuid(String id, String what) {
        if (id == null || !GUID.matcher(id).matches()) {
            throw new IllegalArgumentException("invalid " + what + " ID \"" + id + "\"");
        }
    }
}
