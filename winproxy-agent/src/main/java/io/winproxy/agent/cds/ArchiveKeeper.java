package io.winproxy.agent.cds;

import io.winproxy.agent.DaemonThreads;
import java.io.IOException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proxy's side of {@link SharedArchive}: once, after the first sync, checks in a background thread of the lowest
 * priority that the archive of this jar and runtime is current, and builds it when it is not (the first start after an
 * install or an upgrade), so that the next start maps it. One log line when it builds or fails; nothing otherwise.
 */
public final class ArchiveKeeper {
    private static final Logger logger = LoggerFactory.getLogger(ArchiveKeeper.class);

    private ArchiveKeeper() {
    }

    /** Starts the check; {@code enabled} false (WINPROXY_CDS=off) does nothing. */
    public static void refreshInBackground(boolean enabled) {
        if (!enabled) {
            return;
        }
        Thread thread = DaemonThreads.named("winproxy-cds").newThread(ArchiveKeeper::refresh);
        thread.setPriority(Thread.MIN_PRIORITY);
        thread.start();
    }

    private static void refresh() {
        try {
            Optional<SharedArchive> archive = SharedArchive.ofRunningJar();
            if (archive.isPresent() && archive.get().ensure()) {
                logger.atInfo().setMessage("Class-data-sharing archive built; the next start maps it")
                        .addKeyValue("path", archive.get().archive()).log();
            }
        } catch (IOException e) {
            logger.atWarn().setMessage("Cannot build the class-data-sharing archive; starts stay as they are")
                    .addKeyValue("err", e.getMessage()).log();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
