package io.winproxy.agent.check;

import io.winproxy.agent.state.DirectoryProtection;
import io.winproxy.agent.state.InstanceLock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The state directory part of preflight: it is protected (only SYSTEM and Administrators, or the owner, may write),
 * writable, and not locked by another process. A lock held by the running agent (its lock file says
 * {@code role=agent}) is fine and said so. Whether the lock is held is learnt by trying it and releasing it at once
 * ({@link InstanceLock#isFree}), writing nothing.
 *
 * @param dir          the state directory
 * @param realHns      whether the journal there authorises deletions in the node's real HNS (the Windows DACL
 *                     matters only then, as {@link DirectoryProtection#forThisOs(Path, boolean)} decides)
 */
public record StateDirectoryCheck(Path dir, boolean realHns) {
    private static final CheckGroup G = CheckGroup.preflight;

    public List<CheckResult> run() {
        List<CheckResult> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            if (Files.exists(dir)) {
                out.add(CheckResult.fail(G, "state-dir", "state directory " + dir + " is not a directory",
                        "a file has the state directory's name", "move the file away or give --state-dir another"
                                + " path (docs/troubleshooting.md#state-directory)"));
            } else {
                out.add(CheckResult.warn(G, "state-dir", "state directory " + dir + " does not exist yet",
                        "the proxy has not run with it", "nothing: the proxy creates it, protected, when it starts"
                                + " (docs/troubleshooting.md#state-directory)"));
            }
            return out;
        }
        try {
            Optional<String> problem = DirectoryProtection.forThisOs(dir, realHns).problem(dir);
            if (problem.isPresent()) {
                out.add(CheckResult.fail(G, "state-dir", "state directory " + dir + " is not protected: "
                                + problem.get(), "its journal authorises deletions in HNS, so the proxy refuses a"
                                + " directory others may write", "restrict it to SYSTEM and Administrators (icacls),"
                                + " or chmod 700 (docs/troubleshooting.md#state-directory)"));
            } else {
                out.add(CheckResult.pass(G, "state-dir", "state directory " + dir + " is protected"));
            }
        } catch (IOException e) {
            out.add(CheckResult.fail(G, "state-dir", "cannot read the permissions of " + dir + ": " + e.getMessage(),
                    "the check runs without the rights the proxy has", "run the check as Administrator"
                            + " (docs/troubleshooting.md#state-directory)"));
        }
        out.add(writable());
        out.add(lock());
        return out;
    }

    private CheckResult writable() {
        Path probe = dir.resolve(".check-write-" + ProcessHandle.current().pid());
        try {
            Files.deleteIfExists(probe);
            Files.createFile(probe);
            Files.delete(probe);
            return CheckResult.pass(G, "state-dir-writable", "state directory " + dir + " is writable");
        } catch (IOException e) {
            return CheckResult.fail(G, "state-dir-writable", "state directory " + dir + " is not writable: "
                            + e.getClass().getSimpleName() + " " + e.getMessage(),
                    "the disk is full or read-only, or this account may not write there",
                    "run as Administrator (the service runs as SYSTEM); free disk space"
                            + " (docs/troubleshooting.md#state-directory)");
        }
    }

    private CheckResult lock() {
        boolean free;
        try {
            free = InstanceLock.isFree(dir);
        } catch (IOException e) {
            return CheckResult.fail(G, "state-dir-lock", "cannot open the lock file of " + dir + ": "
                    + e.getMessage(), "the lock file is not readable and writable by this account",
                    "run as Administrator (docs/troubleshooting.md#state-directory)");
        }
        if (free) {
            return CheckResult.pass(G, "state-dir-lock", "state directory " + dir + " is not locked (no proxy runs"
                    + " on it now)");
        }
        String holder = InstanceLock.describeHolder(dir);
        if (InstanceLock.AGENT.equals(InstanceLock.holderRole(dir))) {
            return CheckResult.pass(G, "state-dir-lock", "state directory " + dir + " is locked by the running"
                    + " agent (" + holder + ")");
        }
        return CheckResult.fail(G, "state-dir-lock", "state directory " + dir + " is locked by another process ("
                        + holder + ")", "a second winproxy (a cleanup, or an agent started by hand) holds it; the"
                        + " proxy cannot start while it does",
                "stop that process (Stop-Process -Id <pid>) or give this proxy another --state-dir"
                        + " (docs/troubleshooting.md#state-directory-locked)");
    }
}
