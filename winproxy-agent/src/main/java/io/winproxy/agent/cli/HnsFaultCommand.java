package io.winproxy.agent.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.winproxy.agent.config.GoDuration;
import io.winproxy.hns.HResults;
import io.winproxy.hns.emulator.FaultSettings;
import io.winproxy.hns.emulator.HnsCall;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.emulator.HnsLimits;
import io.winproxy.hns.emulator.HnsObjectKind;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code winproxy hns fault set|clear|show --hns-state FILE}: the faults of an emulated host, for rehearsing HNS
 * incidents against a running demo or agent that shares the state file (it sees them from its next HNS call).
 */
@Command(name = "fault", description = "Inject failures and latency into an emulated HNS host (--hns-state FILE).",
        subcommands = {HnsFaultCommand.SetCommand.class, HnsFaultCommand.ClearCommand.class,
                HnsFaultCommand.ShowCommand.class})
public final class HnsFaultCommand extends CommandGroup {
    /** {@code hns fault set ...}: changes only the settings named; prints the result. */
    @Command(name = "set", description = "Add faults or latency; settings not named are kept.")
    static final class SetCommand extends EmulatedHostCommand {
        @Option(names = "--rate", paramLabel = "FRACTION",
                description = "Fail this fraction (0..1) of calls at random (0 removes random failures).")
        Double rate;

        @Option(names = "--seed", paramLabel = "N", description = "Seed of the random failures (default 1).")
        Long seed;

        @Option(names = "--calls", paramLabel = "KINDS", split = ",",
                description = "Call kinds --rate applies to: enumerate, open, query, close, create, modify, delete "
                        + "(default: all but close).")
        List<String> calls;

        @Option(names = "--fail-next", paramLabel = "N", description = "Fail the next N calls of kind --call.")
        Integer failNext;

        @Option(names = "--call", paramLabel = "KIND", description = "The call kind --fail-next applies to.")
        String call;

        @Option(names = "--object", paramLabel = "load-balancer|endpoint|network",
                description = "Restrict --fail-next to one object kind (default: any).")
        String object;

        @Option(names = "--hresult", paramLabel = "CODE",
                description = "HRESULT of injected failures, by name or hex (default RPC_S_SERVER_UNAVAILABLE "
                        + "0x800706BA; for --outage ERROR_SERVICE_NOT_ACTIVE). RPC_S_CALL_FAILED makes writes "
                        + "happen before they fail.")
        String hresult;

        @Option(names = "--latency", paramLabel = "DURATION", description = "Latency of every HNS call, e.g. 50ms.")
        String latency;

        @Option(names = "--latency-of", paramLabel = "KIND=DURATION",
                description = "Latency of one call kind, e.g. create=200ms (repeatable).")
        List<String> latencyOf;

        @Option(names = "--outage", paramLabel = "DURATION",
                description = "Every call fails for this long from now (HNS stopped).")
        String outage;

        @Option(names = "--max-destinations", paramLabel = "N",
                description = "Load balancers with more than N backends fail with E_INVALIDARG (0: the profile's "
                        + "limit, 64 on Windows Server 2019, else 1024).")
        Integer maxDestinations;

        @Option(names = "--port-pool", paramLabel = "PORTS",
                description = "Size of the dynamic port pool; each non-DSR load balancer reserves 64 ports and a "
                        + "create beyond fails with HCN_E_PORT_ALREADY_EXISTS (0: unlimited, the default).")
        Integer portPool;

        @Override
        void parseOptions() {
            if (rate == null && failNext == null && latency == null && latencyOf == null && outage == null
                    && maxDestinations == null && portPool == null) {
                throw new UsageException("hns fault set: give at least one of --rate, --fail-next, --latency, "
                        + "--latency-of, --outage, --max-destinations, --port-pool");
            }
            if (maxDestinations != null && maxDestinations < 0) {
                throw new UsageException("--max-destinations: must not be negative: " + maxDestinations);
            }
            if (portPool != null && portPool < 0) {
                throw new UsageException("--port-pool: must not be negative: " + portPool);
            }
        }

        @Override
        void run(HnsEmulator hns, CliContext context) {
            List<UnaryOperator<FaultSettings>> changes = new ArrayList<>();
            int code = hresult == null ? FaultSettings.DEFAULT_HRESULT : parseHresult(hresult);
            if (rate != null) {
                if (!(rate >= 0 && rate <= 1)) {
                    throw new UsageException("--rate: must be between 0 and 1: " + rate);
                }
                FaultSettings.RandomFaults r = rate == 0 ? null : new FaultSettings.RandomFaults(rate,
                        seed == null ? 1 : seed, code, callKinds(calls));
                changes.add(f -> f.withRandom(r));
            } else if (seed != null || calls != null) {
                throw new UsageException((seed != null ? "--seed" : "--calls") + ": only with --rate");
            }
            if (failNext != null) {
                if (failNext <= 0) {
                    throw new UsageException("--fail-next: must be positive: " + failNext);
                }
                if (call == null) {
                    throw new UsageException("--fail-next: name the call kind with --call");
                }
                FaultSettings.Scripted s = new FaultSettings.Scripted(callKind("--call", call),
                        object == null ? null : objectKind(object), failNext, code);
                changes.add(f -> f.withScripted(s));
            } else if (call != null || object != null) {
                throw new UsageException((call != null ? "--call" : "--object") + ": only with --fail-next");
            }
            if (latency != null) {
                Duration d = duration("--latency", latency);
                changes.add(f -> f.withLatency(d));
            }
            for (String spec : latencyOf == null ? List.<String>of() : latencyOf) {
                int eq = spec.indexOf('=');
                if (eq < 0) {
                    throw new UsageException("--latency-of: expected KIND=DURATION, not '" + spec + "'");
                }
                HnsCall kind = callKind("--latency-of", spec.substring(0, eq));
                Duration d = duration("--latency-of", spec.substring(eq + 1));
                changes.add(f -> f.withLatency(kind, d));
            }
            if (outage != null) {
                Duration d = duration("--outage", outage);
                Instant until = Instant.now().plus(d);
                int outageCode = hresult == null ? HResults.ERROR_SERVICE_NOT_ACTIVE : code;
                changes.add(f -> f.withOutage(until, outageCode));
            }
            if (maxDestinations != null) {
                Integer limit = maxDestinations == 0 ? null : maxDestinations;
                changes.add(f -> f.withMaxDestinations(limit));
            }
            if (portPool != null) {
                Integer pool = portPool == 0 ? null : portPool;
                changes.add(f -> f.withPortPool(pool));
            }
            FaultSettings updated = hns.faults().settings();
            for (var change : changes) {
                updated = change.apply(updated);
            }
            hns.faults().set(updated);
            print(context, hns.faults().settings());
        }
    }

    /** {@code hns fault clear}: removes every fault, the latency and the outage. */
    @Command(name = "clear", description = "Remove every fault, the latency and any outage.")
    static final class ClearCommand extends EmulatedHostCommand {
        @Override
        void run(HnsEmulator hns, CliContext context) {
            hns.faults().clear();
            print(context, hns.faults().settings());
        }
    }

    /** {@code hns fault show [-o json]}. */
    @Command(name = "show", description = "Show the faults in effect.")
    static final class ShowCommand extends EmulatedHostCommand {
        @Option(names = {"-o", "--output"}, paramLabel = "json|text", description = "Output format (default: text).")
        OutputFormat output = OutputFormat.text;

        @Override
        void run(HnsEmulator hns, CliContext context) {
            FaultSettings settings = hns.faults().settings();
            if (output == OutputFormat.json) {
                context.out().println(HnsCommand.json(json(settings, hns.pendingRehydration().isPresent(),
                        hns.limits())));
            } else {
                print(context, settings);
                hns.pendingRehydration().ifPresent(p -> context.out().println("rehydration pending: "
                        + p.loadBalancers().size() + " load balancer(s), " + p.endpoints().size()
                        + " remote endpoint(s), " + (p.dueAt() == 0 ? "on 'hns rehydrate'"
                        : "at " + Instant.ofEpochMilli(p.dueAt()))));
            }
        }
    }

    private static void print(CliContext context, FaultSettings settings) {
        settings.describe(Instant.now()).forEach(context.out()::println);
    }

    private static ObjectNode json(FaultSettings f, boolean rehydrationPending, HnsLimits limits) {
        JsonNodeFactory n = JsonNodeFactory.instance;
        ObjectNode out = n.objectNode();
        Instant now = Instant.now();
        if (f.inOutage(now)) {
            out.putObject("outage").put("hresult", HResults.hex(f.outageHresult()))
                    .put("remainingMillis", f.outageUntil() - now.toEpochMilli());
        }
        if (f.random() != null) {
            ObjectNode r = out.putObject("random").put("fraction", f.random().fraction())
                    .put("seed", f.random().seed()).put("hresult", HResults.hex(f.random().hresult()));
            ArrayNode kinds = r.putArray("calls");
            EnumSet.copyOf(f.random().calls()).forEach(c -> kinds.add(c.name().toLowerCase(Locale.ROOT)));
        }
        ArrayNode next = out.putArray("failNext");
        for (FaultSettings.Scripted s : f.failNext()) {
            ObjectNode e = next.addObject().put("call", s.call().name().toLowerCase(Locale.ROOT))
                    .put("remaining", s.remaining()).put("hresult", HResults.hex(s.hresult()));
            if (s.object() != null) {
                e.put("object", objectName(s.object()));
            }
        }
        ObjectNode latency = out.putObject("latencyMillis");
        for (HnsCall c : HnsCall.values()) {
            latency.put(c.name().toLowerCase(Locale.ROOT), f.latency(c).toMillis());
        }
        out.put("rehydrationPending", rehydrationPending);
        out.putObject("limits").put("maxDestinationsPerLoadBalancer", limits.maxDestinationsPerLoadBalancer())
                .put("dynamicPorts", limits.dynamicPorts()).put("dynamicPortsInUse", limits.dynamicPortsInUse())
                .put("portsPerLoadBalancer", HnsLimits.PORTS_PER_LOAD_BALANCER);
        return out;
    }

    static int parseHresult(String text) {
        try {
            return HResults.parse(text);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--hresult: " + e.getMessage());
        }
    }

    static Duration duration(String flag, String text) {
        Duration d;
        try {
            d = GoDuration.parse(text);
        } catch (IllegalArgumentException e) {
            throw new UsageException(flag + ": " + e.getMessage());
        }
        if (d.isNegative()) {
            throw new UsageException(flag + ": must not be negative: " + text);
        }
        return d;
    }

    private static Set<HnsCall> callKinds(List<String> names) {
        Set<HnsCall> out = EnumSet.noneOf(HnsCall.class);
        for (String name : names == null ? List.<String>of() : names) {
            out.add(callKind("--calls", name));
        }
        return out;
    }

    private static HnsCall callKind(String flag, String name) {
        try {
            return HnsCall.valueOf(name.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new UsageException(flag + ": unknown call kind '" + name + "' (enumerate, open, query, close, "
                    + "create, modify, delete)");
        }
    }

    private static HnsObjectKind objectKind(String name) {
        for (HnsObjectKind k : HnsObjectKind.values()) {
            if (objectName(k).equals(name.trim().toLowerCase(Locale.ROOT))) {
                return k;
            }
        }
        throw new UsageException("--object: must be load-balancer, endpoint or network, not '" + name + "'");
    }

    private static String objectName(HnsObjectKind k) {
        return k.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
