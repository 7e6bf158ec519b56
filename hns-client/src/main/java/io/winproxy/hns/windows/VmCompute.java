package io.winproxy.hns.windows;

import com.sun.jna.Library;
import com.sun.jna.WString;
import com.sun.jna.ptr.PointerByReference;

/**
 * Tier 1: {@code vmcompute.dll!HNSCall}, the v1 REST-like tunnel to HNS, used for the version probe
 * ({@code HNSCall("GET", "/globals/version", "", &response)}); there is no HCN export for service properties.
 *
 * <p>Memory contract: a non-null {@code response} is a v1 envelope {@code {"Success":..,"Error":..,"Output":..}}
 * allocated by the callee and released exactly once with {@code CoTaskMemFree}. Use {@link VmComputeCalls}.
 */
public interface VmCompute extends Library {

    int HNSCall(WString method, WString path, WString request, PointerByReference response);
}
