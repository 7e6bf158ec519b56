package io.winproxy.hns.emulator;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsCapabilities;
import io.winproxy.hns.HnsClient;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.HnsFeatures;
import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.emulator.EmulatorRules.RuleViolation;
import io.winproxy.hns.model.HcnErrorRecord;
import io.winproxy.hns.model.HcnJson;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.hns.model.SchemaVersion;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
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
 * <p>Thread-safe: operations are serialized. With a state file, each operation loads the file first and saves it
 * afterwards (only when it changed something) under an exclusive file lock. The host side (networks and CNI-owned
 * local endpoints) is driven through {@link EmulatedHost}, whose actions are not journaled: the journal counts what
 * the HNS client under test did.
 */
public final class HnsEmulator implements HnsClient {
    private static final Logger logger = LoggerFactory.getLogger(HnsEmulator.class);

    private final EmulatorStore store;
    private final StateFile stateFile;
    private final CallJournal journal = new CallJournal();
    private final FaultInjector faults = new FaultInjector();
    private final ObjectMapper mapper = HcnJson.newMapper();
    private volatile Duration latency;

    private HnsEmulator(Builder b) {
        this.store = new EmulatorStore(b.version == null ? HnsVersion.WINDOWS_SERVER_2025 : b.version,
                b.seed == null ? new SecureRandom() : new Random(b.seed));
        this.latency = b.latency;
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
        return latency;
    }

    public void setLatency(Duration perCall) {
        this.latency = perCall == null ? Duration.ZERO : perCall;
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
        return operate(false, () -> enumerate(HnsObjectKind.NETWORK, store.networks(), n -> true,
                HostComputeNetwork::id, store::network));
    }

    @Override
    public Optional<HostComputeNetwork> getNetworkByName(String name) {
        return operate(false, () -> enumerate(HnsObjectKind.NETWORK, store.networks(),
                n -> n.name() != null && n.name().equalsIgnoreCase(name), HostComputeNetwork::id, store::network)
                .stream().findFirst());
    }

    @Override
    public Optional<HostComputeNetwork> getNetworkById(String id) {
        return operate(false, () -> enumerate(HnsObjectKind.NETWORK, store.networks(), n -> sameId(n.id(), id),
                HostComputeNetwork::id, store::network).stream().findFirst());
    }

    @Override
    public List<HostComputeEndpoint> listEndpoints(String networkId) {
        return operate(false, () -> enumerate(HnsObjectKind.ENDPOINT, store.endpoints(),
                e -> sameId(e.hostComputeNetwork(), networkId), HostComputeEndpoint::id, store::endpoint));
    }

    @Override
    public Optional<HostComputeEndpoint> getEndpoint(String id) {
        return operate(false, () -> enumerate(HnsObjectKind.ENDPOINT, store.endpoints(), e -> sameId(e.id(), id),
                HostComputeEndpoint::id, store::endpoint).stream().findFirst());
    }

    @Override
    public HostComputeEndpoint createEndpoint(String networkId, HostComputeEndpoint settings) {
        return operate(true, () -> {
            HostComputeNetwork network = open(HnsObjectKind.NETWORK, networkId, store::network);
            try {
                call(HnsCall.CREATE, HnsObjectKind.ENDPOINT);
                HostComputeEndpoint ep = checked(HnsCall.CREATE, HnsObjectKind.ENDPOINT,
                        () -> EndpointFactory.complete(store, network, settings));
                store.put(ep);
                try {
                    call(HnsCall.QUERY, HnsObjectKind.ENDPOINT);
                } finally {
                    call(HnsCall.CLOSE, HnsObjectKind.ENDPOINT);
                }
                return ep;
            } finally {
                call(HnsCall.CLOSE, HnsObjectKind.NETWORK);
            }
        });
    }

    @Override
    public void deleteEndpoint(String id) {
        operate(true, () -> {
            call(HnsCall.DELETE, HnsObjectKind.ENDPOINT);
            HostComputeEndpoint ep = store.endpoint(id).orElseThrow(() -> notFound(HnsCall.DELETE,
                    HnsObjectKind.ENDPOINT, id));
            checked(HnsCall.DELETE, HnsObjectKind.ENDPOINT, () -> {
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
            call(HnsCall.ENUMERATE, HnsObjectKind.LOAD_BALANCER);
            return store.loadBalancers().stream().map(HostComputeLoadBalancer::id).toList();
        });
    }

    @Override
    public List<HostComputeLoadBalancer> listLoadBalancers() {
        return operate(false, () -> enumerate(HnsObjectKind.LOAD_BALANCER, store.loadBalancers(), lb -> true,
                HostComputeLoadBalancer::id, store::loadBalancer));
    }

    @Override
    public Optional<HostComputeLoadBalancer> getLoadBalancer(String id) {
        return operate(false, () -> enumerate(HnsObjectKind.LOAD_BALANCER, store.loadBalancers(),
                lb -> sameId(lb.id(), id), HostComputeLoadBalancer::id, store::loadBalancer).stream().findFirst());
    }

    @Override
    public HostComputeLoadBalancer createLoadBalancer(HostComputeLoadBalancer settings) {
        return operate(true, () -> {
            call(HnsCall.CREATE, HnsObjectKind.LOAD_BALANCER);
            checked(HnsCall.CREATE, HnsObjectKind.LOAD_BALANCER, () -> {
                EmulatorRules.checkLoadBalancer(store, settings, null);
                return null;
            });
            HostComputeLoadBalancer lb = normalized(settings).withId(store.newId());
            store.put(lb);
            try {
                call(HnsCall.QUERY, HnsObjectKind.LOAD_BALANCER);
            } finally {
                call(HnsCall.CLOSE, HnsObjectKind.LOAD_BALANCER);
            }
            return lb;
        });
    }

    @Override
    public HostComputeLoadBalancer modifyLoadBalancer(String id, HostComputeLoadBalancer settings) {
        return operate(true, () -> {
            HostComputeLoadBalancer existing = open(HnsObjectKind.LOAD_BALANCER, id, store::loadBalancer);
            try {
                call(HnsCall.MODIFY, HnsObjectKind.LOAD_BALANCER);
                if (!HnsFeatures.forVersion(store.version()).modifyLoadBalancer()) {
                    throw failure(HnsCall.MODIFY, HnsObjectKind.LOAD_BALANCER, HResults.E_NOTIMPL,
                            "HcnModifyLoadBalancer is not implemented before HNS 15.4 (emulating "
                                    + store.version() + ")");
                }
                checked(HnsCall.MODIFY, HnsObjectKind.LOAD_BALANCER, () -> {
                    EmulatorRules.checkLoadBalancer(store, settings, existing.id());
                    return null;
                });
                HostComputeLoadBalancer lb = normalized(settings).withId(existing.id());
                store.put(lb);
                call(HnsCall.QUERY, HnsObjectKind.LOAD_BALANCER);
                return lb;
            } finally {
                call(HnsCall.CLOSE, HnsObjectKind.LOAD_BALANCER);
            }
        });
    }

    @Override
    public void deleteLoadBalancer(String id) {
        operate(true, () -> {
            call(HnsCall.DELETE, HnsObjectKind.LOAD_BALANCER);
            HostComputeLoadBalancer lb = store.loadBalancer(id).orElseThrow(() -> notFound(HnsCall.DELETE,
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
                throw new HnsException(v.hresult, "host", errorRecord(v.hresult, v.getMessage()));
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
            if (store.revision() != before || (mayWrite && !java.nio.file.Files.exists(stateFile.path()))) {
                stateFile.write(store.toDocument());
            }
            return result;
        });
    }

    /** Enumerate (one call), then open/query/close each match; a match that vanished (not found on open) is skipped. */
    private <T> List<T> enumerate(HnsObjectKind kind, List<T> all, Predicate<T> filter, Function<T, String> idOf,
                                  Function<String, Optional<T>> lookup) {
        call(HnsCall.ENUMERATE, kind);
        List<String> ids = all.stream().filter(filter).map(idOf).toList();
        List<T> out = new ArrayList<>();
        for (String id : ids) {
            try {
                call(HnsCall.OPEN, kind);
            } catch (HnsException e) {
                if (e.isNotFound()) {
                    continue;
                }
                throw e;
            }
            try {
                call(HnsCall.QUERY, kind);
                lookup.apply(id).ifPresent(out::add);
            } finally {
                call(HnsCall.CLOSE, kind);
            }
        }
        return out;
    }

    private <T> T open(HnsObjectKind kind, String id, Function<String, Optional<T>> lookup) {
        call(HnsCall.OPEN, kind);
        return lookup.apply(id).orElseThrow(() -> notFound(HnsCall.OPEN, kind, id));
    }

    /** One native-level call: journaled, delayed by the latency, and failed when a fault is due. */
    private void call(HnsCall call, HnsObjectKind kind) {
        journal.record(call, kind);
        Duration d = latency;
        if (!d.isZero()) {
            try {
                Thread.sleep(d.toMillis(), d.toNanosPart() % 1_000_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        OptionalInt fault = faults.check(call, kind);
        if (fault.isPresent()) {
            throw failure(call, kind, fault.getAsInt(), "injected fault");
        }
    }

    private <T> T checked(HnsCall call, HnsObjectKind kind, Supplier<T> rule) {
        try {
            return rule.get();
        } catch (RuleViolation v) {
            throw failure(call, kind, v.hresult, v.getMessage());
        }
    }

    private HnsException notFound(HnsCall call, HnsObjectKind kind, String id) {
        return failure(call, kind, HResults.ERROR_NOT_FOUND, "Element not found: " + id);
    }

    private HnsException failure(HnsCall call, HnsObjectKind kind, int hresult, String message) {
        journal.recordFailure(hresult);
        logger.debug("emulated {} failed: {} {}", kind.exportName(call), HResults.describe(hresult), message);
        return new HnsException(hresult, kind.exportName(call), errorRecord(hresult, message));
    }

    private String errorRecord(int hresult, String message) {
        try {
            return mapper.writeValueAsString(HcnErrorRecord.failure(hresult, message));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode an error record", e);
        }
    }

    private static HostComputeLoadBalancer normalized(HostComputeLoadBalancer lb) {
        return lb.schemaVersion() != null ? lb : new HostComputeLoadBalancer(lb.id(), lb.hostComputeEndpoints(),
                lb.sourceVip(), lb.frontendVips(), lb.portMappings(), SchemaVersion.V2, lb.flags());
    }

    private static boolean sameId(String a, String b) {
        return a != null && b != null && EmulatorStore.key(a).equals(EmulatorStore.key(b));
    }
}
