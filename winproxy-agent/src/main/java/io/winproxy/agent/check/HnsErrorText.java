package io.winproxy.agent.check;

import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsException;

/**
 * How {@code check} words a failed HNS call: the decoded HRESULT (by code, never by message) and its meaning. The one
 * place of this package that decodes HRESULTs.
 */
final class HnsErrorText {
    private HnsErrorText() {
    }

    /** {@code 0x80070490 ERROR_NOT_FOUND (Element not found)}. */
    static String of(int hresult) {
        return HResults.describe(hresult) + HResults.message(hresult).map(m -> " (" + m + ")").orElse("");
    }

    static String of(HnsException e) {
        return e.operation() + " failed: " + of(e.hresult());
    }
}
