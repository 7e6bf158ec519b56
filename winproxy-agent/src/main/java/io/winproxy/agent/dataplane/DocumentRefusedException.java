package io.winproxy.agent.dataplane;

import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsException;

/**
 * HNS refused a create document with a code an ID refusal may have, and refused it again when retried without the
 * caller-chosen ID: the document itself is at fault (e.g. more backends than the host's limit), not the ID. Carries
 * the retry's HRESULT, so it is classified like any HNS failure; nothing is learnt about IDs from it.
 */
public final class DocumentRefusedException extends HnsException {
    private final int firstHresult;

    DocumentRefusedException(String kind, String object, HnsException first, HnsException retry) {
        super(retry.hresult(), retry.operation(), "HNS refused the " + kind + " document"
                + (object == null || object.isEmpty() ? "" : " for " + object) + " itself: "
                + HResults.describe(first.hresult()) + " with the ID winproxy chose and "
                + HResults.describe(retry.hresult()) + " again without one" + (retry.errorRecord().isEmpty() ? ""
                : " " + retry.errorRecord()));
        this.firstHresult = first.hresult();
    }

    /** The HRESULT of the create with the chosen ID. */
    public int firstHresult() {
        return firstHresult;
    }
}
