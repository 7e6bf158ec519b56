package io.winproxy.agent.cli;

import io.winproxy.hns.HnsClient;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.windows.WindowsHnsClient;
import io.winproxy.agent.config.GoDuration;
import io.winproxy.agent.dataplane.DriftBudget;
import io.winproxy.agent.pipeline.HostMacLookup;
import io.winproxy.agent.state.InstanceLock;
import io.winproxy.agent.state.InstanceLockedException;
import io.winproxy.agent.state.InvalidStateDirectoryException;
import io.winproxy.agent.state.StateDirectory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * winproxy's own options (not kube-proxy's): which HNS to program, where the emulated host keeps its state, where
 * the ownership journal lives, and the type of a fresh emulated network. A picocli mixin shared by the commands.
 */
public final class HnsHostOptions {

    /** Which HNS implementation to use. */
    public enum HnsKind { windows, emulated }

    /** The type of an emulated network built from the Nodes. */
    public enum NetworkKind { overlay, l2bridge }

    @Option(names = "--hns", paramLabel = "windows|emulated",
            description = "HNS to program: the real one (windows, the default on Windows) or the in-memory emulator "
                    + "(emulated, the default elsewhere).")
    HnsKind hns;

    @Option(names = "--hns-state", paramLabel = "FILE",
            description = "State file of the emulated host (implies --hns emulated); shared by separate processes.")
    Path hnsState;

    @Option(names = "--state-dir", paramLabel = "DIR",
            description = "Where the ownership journal is kept. Default: FILE.winproxy beside --hns-state FILE; "
                    + "else %%ProgramData%%\\winproxy on Windows, /var/lib/winproxy elsewhere.")
    Path stateDir;

    @Option(names = "--emulated-network-type", paramLabel = "overlay|l2bridge",
            description = "Type of the emulated network built from the Nodes when no --hns-state is given "
                    + "(default: overlay).")
    NetworkKind emulatedNetworkType;

    @Option(names = "--hns-drift-check-period", paramLabel = "DURATION",
            description = "Re-read every load balancer and remote endpoint winproxy owns once per this period to "
                    + "repair changes made behind its back (default 10m; 0s: as many as the per-sync limit allows "
                    + "in every periodic resync).")
    String driftCheckPeriod;

    @Option(names = "--hns-drift-check-reads", paramLabel = "N",
            description = "At most N documents are re-read for drift in one periodic resync (default 10000, enough "
                    + "for the period to hold up to 200,000 owned objects at the default periods; 0 turns "
                    + "content-drift checks off; deletions are always seen).")
    Integer driftCheckReads;

    @Option(names = "--hns-max-backends-per-load-balancer", paramLabel = "N",
            description = "Program at most N backends per load balancer, this node's endpoints first (default: the "
                    + "limit this node's HNS showed, kept in hns-capabilities.json in the state directory, else "
                    + "5000). Windows Server 2019 takes 64.")
    Integer maxBackends;

    /**
     * {@code --hns-max-backends-per-load-balancer}: null when not given.
     *
     * @throws UsageException naming the flag when the value is not a positive number
     */
    public Integer maxBackendsPerLoadBalancer() {
        if (maxBackends != null && maxBackends < 1) {
            throw new UsageException("--hns-max-backends-per-load-balancer: must be a positive number: "
                    + maxBackends);
        }
        return maxBackends;
    }

    /**
     * The drift budget of {@code --hns-drift-check-period} and {@code --hns-drift-check-reads}.
     *
     * @throws UsageException naming the flag when a value is invalid
     */
    public DriftBudget driftBudget() {
        Duration period = DriftBudget.DEFAULT.period();
        if (driftCheckPeriod != null) {
            try {
                period = GoDuration.parse(driftCheckPeriod);
            } catch (IllegalArgumentException e) {
                throw new UsageException("--hns-drift-check-period: " + e.getMessage());
            }
            if (period.isNegative()) {
                throw new UsageException("--hns-drift-check-period: must not be negative: " + driftCheckPeriod);
            }
        }
        int reads = DriftBudget.DEFAULT.readsPerSync();
        if (driftCheckReads != null) {
            if (driftCheckReads < 0) {
                throw new UsageException("--hns-drift-check-reads: must not be negative: " + driftCheckReads);
            }
            reads = driftCheckReads;
        }
        return new DriftBudget(period, reads);
    }

    /** The HNS kind in effect: explicit, else emulated when a state file is given, else by operating system. */
    public HnsKind effectiveHns() {
        if (hns != null) {
            return hns;
        }
        if (hnsState != null) {
            return HnsKind.emulated;
        }
        return isWindows() ? HnsKind.windows : HnsKind.emulated;
    }

    /** True when {@code --hns windows} was given explicitly (plan and trace then read the node's real HNS). */
    public boolean explicitlyWindows() {
        return hns == HnsKind.windows;
    }

    public Optional<Path> hnsState() {
        return Optional.ofNullable(hnsState);
    }

    public NetworkKind emulatedNetworkType() {
        return emulatedNetworkType == null ? NetworkKind.overlay : emulatedNetworkType;
    }

    /**
     * The state directory: the flag; else, with {@code --hns-state FILE}, the directory {@code FILE.winproxy} beside
     * it (the journal belongs to that emulated host, so every command naming the file finds it); else
     * {@code %ProgramData%\winproxy} on Windows, else /var/lib/winproxy.
     */
    public Path stateDir(Map<String, String> env) {
        if (stateDir != null && stateDir.toString().isBlank()) {
            throw new UsageException("--state-dir: must not be empty");
        }
        if (stateDir != null) {
            return stateDir;
        }
        if (hnsState != null && effectiveHns() == HnsKind.emulated) {
            return hnsState.resolveSibling(hnsState.getFileName() + ".winproxy");
        }
        if (isWindows()) {
            String programData = env.getOrDefault("ProgramData", "C:\\ProgramData");
            return Path.of(programData, "winproxy");
        }
        return Path.of("/var/lib/winproxy");
    }

    /**
     * Prepares the state directory (created protected, or checked) and takes its single-instance lock; call before
     * anything touches HNS or the journal, hold it for the command's life.
     *
     * @throws UsageException                   naming {@code --state-dir} when it is empty, not a directory, cannot
     *                                          be created or is not protected
     * @throws InstanceLockedException when another winproxy holds it (exit 1)
     */
    public InstanceLock lockStateDir(Map<String, String> env) {
        return lockStateDir(env, "");
    }

    /** As {@link #lockStateDir(Map)}, naming the holder's role ({@link InstanceLock#AGENT} for the proxy). */
    public InstanceLock lockStateDir(Map<String, String> env, String role) {
        Path dir = stateDir(env);
        try {
            return StateDirectory.prepareAndLock(dir, effectiveHns() == HnsKind.windows, role);
        } catch (InvalidStateDirectoryException e) {
            throw new UsageException("--state-dir: " + e.getMessage());
        }
    }

    /** True when the state directory was given explicitly. */
    public boolean stateDirGiven() {
        return stateDir != null;
    }

    /**
     * Opens the HNS to act on: the emulated host of {@code --hns-state} (persisted there), a fresh in-memory emulator,
     * or the real HNS through computenetwork.dll.
     *
     * @throws UsageException when --hns windows is asked for on another operating system
     */
    public HnsClient open() {
        if (effectiveHns() == HnsKind.windows) {
            if (!isWindows()) {
                throw new UsageException(
                        "--hns: windows needs a Windows host; use --hns emulated (or --hns-state FILE)");
            }
            return WindowsHnsClient.load();
        }
        if (hnsState != null) {
            return HnsEmulator.builder().stateFile(hnsState).build();
        }
        return HnsEmulator.inMemory();
    }

    /**
     * The host-MAC port that goes with {@link #open()}: the node's interfaces for the real HNS, the emulated host's
     * NIC otherwise.
     */
    public HostMacLookup hostMacLookup() {
        return effectiveHns() == HnsKind.windows ? HostMacLookup.system() : HostMacLookup.emulated();
    }

    /**
     * As {@link #open()}, for commands that act on an existing host ({@code hns list}, {@code hns delete}): a
     * {@code --hns-state} file that does not exist is refused instead of becoming a new, empty host.
     *
     * @throws UsageException naming {@code --hns-state} when the file does not exist
     */
    public HnsClient openExisting() {
        if (effectiveHns() == HnsKind.emulated && hnsState != null) {
            try {
                return HnsEmulator.openExisting(hnsState);
            } catch (IllegalArgumentException e) {
                throw new UsageException("--hns-state: " + e.getMessage());
            }
        }
        return open();
    }

    /**
     * The emulated host of {@code --hns-state FILE}, for the commands that control it ({@code hns fault},
     * {@code hns restart}): they act on a host another process (a demo, an agent) uses.
     *
     * @throws UsageException naming {@code --hns-state} when it is missing, names no file, or the host is real HNS
     */
    public HnsEmulator openEmulated(String command) {
        if (hnsState == null || effectiveHns() != HnsKind.emulated) {
            throw new UsageException("--hns-state: " + command + " acts on an emulated host; give --hns-state FILE "
                    + "(the file a demo or agent uses)");
        }
        try {
            return HnsEmulator.openExisting(hnsState);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--hns-state: " + e.getMessage());
        }
    }

    static boolean isWindows() {
        return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
    }
}
