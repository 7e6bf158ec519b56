package io.winproxy.agent.cds;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code winproxy cds}: builds the class-data-sharing archive of this jar and Java runtime beside the jar, when the
 * current one is missing or unreadable, and records it in {@code jvm-cds.options} for the launchers
 * ({@link SharedArchive}). {@code install-service.ps1} runs it at install time; the proxy also runs it in the
 * background after its first sync. Prints one line with the archive's path; exit 1 when it cannot be built.
 */
@Command(name = "cds", description = "Build the class-data-sharing archive beside winproxy-agent.jar (faster starts); "
        + "the launchers use it through jvm-cds.options.")
public final class CdsCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            Optional<SharedArchive> archive = SharedArchive.ofRunningJar();
            if (archive.isEmpty()) {
                err.println("cds: winproxy does not run from winproxy-agent.jar here; there is no jar to archive");
                return 1;
            }
            boolean built = archive.get().ensure();
            out.println((built ? "built " : "current ") + archive.get().archive() + " (in "
                    + archive.get().optionsFile().getFileName() + ")");
            return 0;
        } catch (IOException e) {
            err.println("cds: cannot build the class-data-sharing archive: " + e.getMessage());
            return 1;
        }
    }
}
