package io.winproxy.hns.emulator;

import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsCapabilities;
import io.winproxy.hns.HnsClient;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.HnsFeatures;
import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.emulator.EmulatorRules.RuleViolation;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.hns.model.SchemaVersion;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An in-memory Host Networking Service that behaves like the real one towards an {@link HnsClient} user: unique
 * bare lower-case GUIDs, the HRESULTs of {@link EmulatorRules}, version-gated features (default HNS 15.4), a
 * {@link CallJournal} that counts native-level calls exactly as the JNA binding makes them (hcsshim's sequences:
 * list = enumerate + N x (open, query, close); get = filtered enumerate + open/query/close of the match; create LB
 * = create, query, close; create endpoint = open network, create, query, close endpoint, close network; modify LB
 * = open, modify, query, close; delete = one delete by ID), per-call latency, fault injection
 * ({@link FaultInjector}), {@link #restartHns()}, and an optional state file shared between processes.
 *
 * <p>IDs must be GUIDs (braces and any letter case accepted); anything else is refused with an
 * {@link IllegalArgumentException} before any native call, as hcsshim and the JNA binding do.
 *
 * <p>Thread-safe: operations are serialized. With a state file, each operation loads the file first and saves it
 * afterwards (only when it changed something) under an exclusive file lock. The host side (networks and CNI-owned
 * local endpoints) is driven through {@link EmulatedHost}, whose actions are not journaled: the journal counts what
 * the HNS client under test did.
 */
public final class HnsEmulator implements HnsClient {
    private static final Logger logger = LoggerFactory.getLogger(HnsEmulator.class);
    private static final Pattern GUID = Pattern.compile(
            "\\{?[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}}?");

    private final EmulatorStore store;
    private final StateFile stateFile;
    private final CallJournal journal = new CallJournal();
    private final FaultInjector faults = new FaultInjector();
    private final NativeCalls calls;

    private HnsEmulator(Builder b) {
        this.store = new EmulatorStore(b.version == null ? HnsVersion.WINDOWS_SERVER_2025 : b.version,
                b.seed == null ? new SecureRandom() : new Random(b.seed));
        this.calls = new NativeCalls(journal, faults, b.latency);
        this.stateFile = b.stateFile == null ? null : new StateFile(b.stateFile);
        if (stateFile != null) {
            // Adopt the file's content; an explicitly configured version overrides the file's and is saved.
            operate(true, () -> {
                if (b.version != null) {
                    store.setVersion(b.version);
                }
                return null;
            });
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
        private Long seed;

        /** The emulated HNS version (default 15.4; with a state file, default: the file's version). */
        public Builder version(HnsVersion v) {
            this.version = v;
            return this;
        }

        /** Share state with other processes through this JSON file (created when absent). */
        public Builder stateFile(Path path) {
            this.stateFile = path;
            return this;
        }

        /** Time every native-level call takes (default zero). */
        public Builder latency(Duration perCall) {
            this.latency = perCall == null ? Duration.ZERO : perCall;
            return this;
        }

        /** Seed for the GUID generator, for reproducible IDs in tests (default: secure random). */
        public Builder seed(long s) {
            this.seed = s;
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

    public Duration latency() {
        return calls.latency();
    }

    public void setLatency(Duration perCall) {
        calls.setLatency(perCall);
    }

    public Optional<Path> stateFile() {
        return Optional.ofNullable(stateFile).map(StateFile::path);
    }

    public HnsVersion version() {
        return operate(false, store::version);
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
     * (CNI-owned) endpoints survive. Not journaled.
     */
    public void restartHns() {
        operate(true, () -> {
            int lbs = store.loadBalancers().size();
            store.loadBalancers().forEach(lb -> store.removeLoadBalancer(lb.id()));
            List<HostComputeEndpoint> remote = store.endpoints().stream().filter(HostComputeEndpoint::isRemote)
                    .toList();
            remote.forEach(e -> store.removeEndpoint(e.id()));
            logger.info("Emulated HNS restart dropped {} load balancers and {} remote endpoints", lbs, remote.size());
            return null;
        });
    }

    // ---- HnsClient ---------------------------------------------------------------------------------------------

    @Override
    public HnsCapabilities capabilities() {
        return HnsFeatures.forVersion(version());
    }

    @Override
    public List<HostComputeNetwork> listNetworks() {
        return operate(false, () -> calls.enumerate(HnsObjectKind.NETWORK, store.networks(), n -> true,
                HostComputeNetwork::id, store::network));
    }

    @Override
    public Optional<HostComputeNetwork> getNetworkByName(String name) {
        return operate(false, () -> calls.enumerate(HnsObjectKind.NETWORK, store.networks(),
                n -> n.name() != null && n.name().equalsIgnoreCase(name), HostComputeNetwork::id, store::network)
                .stream().findFirst());
    }

    @Override
    public Optional<HostComputeNetwork> getNetworkById(String id) {
        requireGuid(id, "network");
        return operate(false, () -> calls.enumerate(HnsObjectKind.NETWORK, store.networks(), n -> sameId(n.id(), id),
                HostComputeNetwork::id, store::network).stream().findFirst());
    }

    @Override
    public List<HostComputeEndpoint> listEndpoints(String networkId) {
        return operate(false, () -> calls.enumerate(HnsObjectKind.ENDPOINT, store.endpoints(),
                e -> sameId(e.hostComputeNetwork(), networkId), HostComputeEndpoint::id, store::endpoint));
    }

    @Override
    public Optional<HostComputeEndpoint> getEndpoint(String id) {
        requireGuid(id, "endpoint");
        return operate(false, () -> calls.enumerate(HnsObjectKind.ENDPOINT, store.endpoints(), e -> sameId(e.id(), id),
                HostComputeEndpoint::id, store::endpoint).stream().findFirst());
    }

    @Override
    public HostComputeEndpoint createEndpoint(String networkId, HostComputeEndpoint settings) {
        requireGuid(networkId, "network");
        return operate(true, () -> {
            HostComputeNetwork network = calls.open(HnsObjectKind.NETWORK, networkId, store::network);
            try {
                calls.call(HnsCall.CREATE, HnsObjectKind.ENDPOINT);
                HostComputeEndpoint ep = calls.checked(HnsCall.CREATE, HnsObjectKind.ENDPOINT,
                        () -> EndpointFactory.complete(store, network, settings));
                store.put(ep);
                try {
                    calls.call(HnsCall.QUERY, HnsObjectKind.ENDPOINT);
                } finally {
                    calls.call(HnsCall.CLOSE, HnsObjectKind.ENDPOINT);
                }
                return ep;
            } finally {
                calls.call(HnsCall.CLOSE, HnsObjectKind.NETWORK);
            }
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
            return store.loadBalancers().stream().map(HostComputeLoadBalancer::id).toList();
        });
    }

    @Override
    public List<HostComputeLoadBalancer> listLoadBalancers() {
        return operate(false, () -> calls.enumerate(HnsObjectKind.LOAD_BALANCER, store.loadBalancers(), lb -> true,
                HostComputeLoadBalancer::id, store::loadBalancer));
    }

    @Override
    public Optional<HostComputeLoadBalancer> getLoadBalancer(String id) {
        requireGuid(id, "load balancer");
        return operate(false, () -> calls.enumerate(HnsObjectKind.LOAD_BALANCER, store.loadBalancers(),
                lb -> sameId(lb.id(), id), HostComputeLoadBalancer::id, store::loadBalancer).stream().findFirst());
    }

    @Override
    public HostComputeLoadBalancer createLoadBalancer(HostComputeLoadBalancer settings) {
        return operate(true, () -> {
            calls.call(HnsCall.CREATE, HnsObjectKind.LOAD_BALANCER);
            calls.checked(HnsCall.CREATE, HnsObjectKind.LOAD_BALANCER, () -> {
                EmulatorRules.checkLoadBalancer(store, settings, null);
                return null;
            });
            HostComputeLoadBalancer lb = normalized(settings).withId(store.newId());
            store.put(lb);
            try {
                calls.call(HnsCall.QUERY, HnsObjectKind.LOAD_BALANCER);
            } finally {
                calls.call(HnsCall.CLOSE, HnsObjectKind.LOAD_BALANCER);
            }
            return lb;
        });
    }

    @Override
    public HostComputeLoadBalancer modifyLoadBalancer(String id, HostComputeLoadBalancer settings) {
        requireGuid(id, "load balancer");
        return operate(true, () -> {
            HostComputeLoadBalancer existing = calls.open(HnsObjectKind.LOAD_BALANCER, id, store::loadBalancer);
            try {
                calls.call(HnsCall.MODIFY, HnsObjectKind.LOAD_BALANCER);
                if (!HnsFeatures.forVersion(store.version()).modifyLoadBalancer()) {
                    throw calls.failure(HnsCall.MODIFY, HnsObjectKind.LOAD_BALANCER, HResults.E_NOTIMPL,
                            "HcnModifyLoadBalancer is not implemented before HNS 15.4 (emulating "
                                    + store.version() + ")");
                }
                calls.checked(HnsCall.MODIFY, HnsObjectKind.LOAD_BALANCER, () -> {
                    EmulatorRules.checkLoadBalancer(store, settings, existing.id());
                    return null;
                });
                HostComputeLoadBalancer lb = normalized(settings).withId(existing.id());
                store.put(lb);
                calls.call(HnsCall.QUERY, HnsObjectKind.LOAD_BALANCER);
                return lb;
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

    private synchronized <T> T operate(boolean mayWrite, Supplier<T> op) {
        if (stateFile == null) {
            return op.get();
        }
        return stateFile.locked(() -> {
            stateFile.read().ifPresent(store::load);
            long before = store.revision();
            T result = op.get();
            if (store.revision() != before || (mayWrite && !Files.exists(stateFile.path()))) {
                stateFile.write(store.toDocument());
            }
            return result;
        });
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

    private static boolean sameId(String a, String b) {
        return a != null && b != null && EmulatorStore.key(a).equals(EmulatorStore.key(b));
    }
}
