package io.winproxy.hns.windows;

/**
 * IDs and HRESULTs the binding's tests expect, written out as literals (not taken from the code under test), shared
 * by the tests of the JNA client and its native call layers.
 */
final class TestIds {
    /** A well-formed GUID no test creates. */
    static final String UNKNOWN_ID = "0A0B0C0D-1111-2222-3333-444455556666";
    static final String LB_ID = "6F9619FF-8B86-D011-B42D-00C04FC964FF";
    static final String EP_ID = "1B4E28BA-2FA1-11D2-883F-0016D3CCA427";
    static final String EP_ID_2 = "1B4E28BA-2FA1-11D2-883F-0016D3CCA428";
    static final String EP_ID_3 = "1B4E28BA-2FA1-11D2-883F-0016D3CCA429";
    /** HRESULT_FROM_WIN32(ERROR_ALREADY_EXISTS): an object of that kind already has the caller's id. */
    static final int ERROR_ALREADY_EXISTS = 0x800700B7;

    private TestIds() {
    }
}
