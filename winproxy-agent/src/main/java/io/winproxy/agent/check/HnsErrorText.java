package io.winproxy.agent.check;

import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsErrors;
import io.winproxy.hns.HnsException;

/**
 * How {@code check} words a failed HNS call: through the one HRESULT decoder ({@link HnsErrors}), by code, never by
 * message.
 */
final class HnsErrorText {
    private HnsErrorText() {
    }

    /** {@code 0x80070490 ERROR_NOT_FOUND: <likely cause>. Fix: <fix>}. */
    static String of(int hresult) {
        return HnsErrors.diagnose(hresult).summary();
    }

    /** {@code HcnCreateLoadBalancer failed: 0x80070057 E_INVALIDARG: ...}. */
    static String of(HnsException e) {
        return e.operation() + " failed: " + of(e.hresult());
    }

    /** {@code 0x80070057 E_INVALIDARG}: the code alone, for results that state their own cause. */
    static String code(int hresult) {
        return HResults.describe(hresult);
    }
}
