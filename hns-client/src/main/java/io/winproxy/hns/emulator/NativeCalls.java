package io.winproxy.hns.emulator;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.NativeCallListener;
import io.winproxy.hns.emulator.EmulatorRules.RuleViolation;
import io.winproxy.hns.model.HcnErrorRecord;
import io.winproxy.hns.model.HcnJson;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The native-call layer of the emulator: every HCN call it serves goes through {@link #call}, which journals it,
 * applies the configured latency and fails it when a fault is due; failures become {@link HnsException}s named after
 * the HCN export and carrying an HCN error record, as the real binding reports them.
 */
final class NativeCalls {
    private static final Logger logger = LoggerFactory.getLogger(NativeCalls.class);

    private final CallJournal journal;
    private final FaultInjector faults;
    private final BooleanSupplier policyNotFound;
    private final ObjectMapper mapper = HcnJson.newMapper();
    private volatile NativeCallListener listener = NativeCallListener.NONE;
    /** A failure the current operation reports after completing its write (see {@link #call}). */
    private HnsException deferred;

    /** @param policyNotFound whether an unknown load balancer ID answers HCN_E_POLICY_NOT_FOUND (a variant) */
    NativeCalls(CallJournal journal, FaultInjector faults, BooleanSupplier policyNotFound) {
        this.journal = journal;
        this.faults = faults;
        this.policyNotFound = policyNotFound;
    }

    /** The failure due at the end of the current operation, if any; clears it. */
    HnsException takeDeferred() {
        HnsException d = deferred;
        deferred = null;
        return d;
    }

    void setListener(NativeCallListener l) {
        this.listener = l == null ? NativeCallListener.NONE : l;
    }

    /**
     * Enumerate (one call), whose result {@code ids} computes, then open/query/close each ID; an object that vanished
     * (not found on open or query) is skipped.
     */
    <T> List<T> enumerate(HnsObjectKind kind, Supplier<List<String>> ids, Function<String, Optional<T>> lookup) {
        call(HnsCall.ENUMERATE, kind);
        List<String> found = ids.get();
        List<T> out = new ArrayList<>(found.size());
        for (String id : found) {
            openQueryClose(kind, id, lookup).ifPresent(out::add);
        }
        return out;
    }

    /**
     * Open by GUID, query, close. Not found on open: the open is journaled as a failed call and the result is empty
     * (no close, there is no handle); not found on query: empty after the close.
     */
    <T> Optional<T> openQueryClose(HnsObjectKind kind, String id, Function<String, Optional<T>> lookup) {
        Optional<T> found;
        try {
            call(HnsCall.OPEN, kind);
            found = lookup.apply(id);
            if (found.isEmpty()) {
                throw notFound(HnsCall.OPEN, kind, id);
            }
        } catch (HnsException e) {
            if (e.isNotFound()) {
                return Optional.empty();
            }
            throw e;
        }
        try {
            call(HnsCall.QUERY, kind);
            return found;
        } catch (HnsException e) {
            if (e.isNotFound()) {
                return Optional.empty();
            }
            throw e;
        } finally {
            call(HnsCall.CLOSE, kind);
        }
    }

    <T> T open(HnsObjectKind kind, String id, Function<String, Optional<T>> lookup) {
        call(HnsCall.OPEN, kind);
        return lookup.apply(id).orElseThrow(() -> notFound(HnsCall.OPEN, kind, id));
    }

    /**
     * One native-level call: journaled, reported to the listener, delayed by the latency, and failed when a fault is
     * due. A write whose injected HRESULT says the call may have completed ({@link HResults#mayHaveCompleted},
     * e.g. {@code RPC_S_CALL_FAILED}) is carried out and fails afterwards: the operation throws it at its end
     * ({@link #takeDeferred()}), as a real RPC whose reply was lost.
     */
    void call(HnsCall call, HnsObjectKind kind) {
        journal.record(call, kind);
        listener.nativeCall(kind.exportName(call));
        Duration d = faults.latency(call);
        if (!d.isZero()) {
            try {
                Thread.sleep(d.toMillis(), d.toNanosPart() % 1_000_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        OptionalInt fault = faults.check(call, kind);
        if (fault.isPresent()) {
            HnsException e = failure(call, kind, fault.getAsInt(), "injected fault");
            if (call.isWrite() && HResults.mayHaveCompleted(fault.getAsInt())) {
                deferred = e;
                return;
            }
            throw e;
        }
    }

    <T> T checked(HnsCall call, HnsObjectKind kind, Supplier<T> rule) {
        try {
            return rule.get();
        } catch (RuleViolation v) {
            throw failure(call, kind, v.hresult, v.getMessage());
        }
    }

    HnsException notFound(HnsCall call, HnsObjectKind kind, String id) {
        if (kind == HnsObjectKind.LOAD_BALANCER && policyNotFound.getAsBoolean()) {
            return failure(call, kind, HResults.HCN_E_POLICY_NOT_FOUND, "The specified policy was not found: " + id);
        }
        return failure(call, kind, HResults.ERROR_NOT_FOUND, "Element not found: " + id);
    }

    HnsException failure(HnsCall call, HnsObjectKind kind, int hresult, String message) {
        journal.recordFailure(hresult);
        logger.atDebug().setMessage("Emulated call failed").addKeyValue("call", kind.exportName(call))
                .addKeyValue("hresult", HResults.describe(hresult)).addKeyValue("err", message).log();
        return new HnsException(hresult, kind.exportName(call), errorRecord(hresult, message));
    }

    String errorRecord(int hresult, String message) {
        try {
            return mapper.writeValueAsString(HcnErrorRecord.failure(hresult, message));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode an error record", e);
        }
    }

}
