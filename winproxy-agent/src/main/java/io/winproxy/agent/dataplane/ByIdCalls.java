package io.winproxy.agent.dataplane;

import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsException;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the dataplane reads an answer to an open or delete by ID. No public client opens or deletes a load balancer by
 * an ID HNS does not know (hcsshim and hnslib enumerate with a filter), so which code "no such object" is on a given
 * build is not known: every code of the not-found family ({@link HResults#isNotFound}) means absent, and a code that
 * says neither absent nor unavailable is settled by the next enumerate (which lists the IDs that exist), not by an
 * exception out of read-back, adoption or delete.
 */
final class ByIdCalls {
    private static final Logger logger = LoggerFactory.getLogger(ByIdCalls.class);

    private ByIdCalls() {
    }

    /**
     * A read by ID: the document, empty when HNS says it does not exist, null when HNS answered another failure
     * (unsettled; logged at debug). HNS being unavailable is thrown: the sync stops as for any call.
     */
    static <T> Optional<T> read(Supplier<Optional<T>> read, String kind, String id) {
        try {
            return read.get();
        } catch (HnsException e) {
            if (e.isServiceUnavailable()) {
                throw e;
            }
            logger.atDebug().setMessage("A read by ID failed; the next enumerate settles whether the object exists")
                    .addKeyValue("kind", kind).addKeyValue("id", id).addKeyValue("hresult", e.hresultName()).log();
            return null;
        }
    }

    /**
     * Whether a failed delete is left to the next enumerate: HNS answered a code this build does not know, so it may
     * be a "not found" of its own or a refusal; the object stays owned, and the next observe forgets it if the
     * enumerate no longer lists it, or plans its delete again.
     */
    static boolean deleteUnsettled(HnsException e, String kind, String id) {
        if (HResults.isKnown(e.hresult())) {
            return false;
        }
        logger.atInfo().setMessage("HNS answered an unknown code to a delete; the next sync's enumerate shows whether "
                + "the object is gone").addKeyValue("kind", kind).addKeyValue("id", id)
                .addKeyValue("hresult", e.hresultName()).log();
        return true;
    }
}
