package io.winproxy.hns.windows;

import com.sun.jna.Library;
import com.sun.jna.Pointer;
import com.sun.jna.WString;
import com.sun.jna.platform.win32.Guid;
import com.sun.jna.ptr.PointerByReference;

/**
 * Tier 1 of the HCN binding: the {@code computenetwork.dll} exports for networks, endpoints and load balancers, with
 * their exact Win32 names and C parameter lists (hcn-api.md section 1.2). Nothing here reads or frees memory; use
 * {@link HcnCalls}.
 *
 * <p>Mapping: a plain {@link Library} (x64 Windows has one calling convention; {@code StdCallLibrary} fails on
 * Linux) without a function mapper, so the names are the real export names. {@code HRESULT} is {@code int};
 * {@code REFGUID} is {@link Guid.GUID}, which JNA passes by reference; {@code PCWSTR} is {@link WString};
 * {@code PWSTR*} and {@code PHCN_xxx} outs are {@link PointerByReference}; handles in are {@link Pointer}.
 *
 * <p>Memory contract: every non-null string returned through a {@code PointerByReference} (id lists, properties and
 * error records, on success and on failure) is allocated by the callee and must be released exactly once with
 * {@code CoTaskMemFree}; every handle from {@code Create}/{@code Open} must be released exactly once with the
 * matching {@code HcnCloseXxx}.
 */
public interface ComputeNetwork extends Library {

    // Networks

    int HcnEnumerateNetworks(WString query, PointerByReference networks, PointerByReference errorRecord);

    int HcnCreateNetwork(Guid.GUID id, WString settings, PointerByReference network, PointerByReference errorRecord);

    int HcnOpenNetwork(Guid.GUID id, PointerByReference network, PointerByReference errorRecord);

    int HcnModifyNetwork(Pointer network, WString settings, PointerByReference errorRecord);

    int HcnQueryNetworkProperties(Pointer network, WString query, PointerByReference properties,
                                  PointerByReference errorRecord);

    int HcnDeleteNetwork(Guid.GUID id, PointerByReference errorRecord);

    int HcnCloseNetwork(Pointer network);

    // Endpoints (HcnCreateEndpoint takes the network handle first, then the id)

    int HcnEnumerateEndpoints(WString query, PointerByReference endpoints, PointerByReference errorRecord);

    int HcnCreateEndpoint(Pointer network, Guid.GUID id, WString settings, PointerByReference endpoint,
                          PointerByReference errorRecord);

    int HcnOpenEndpoint(Guid.GUID id, PointerByReference endpoint, PointerByReference errorRecord);

    int HcnModifyEndpoint(Pointer endpoint, WString settings, PointerByReference errorRecord);

    int HcnQueryEndpointProperties(Pointer endpoint, WString query, PointerByReference properties,
                                   PointerByReference errorRecord);

    int HcnDeleteEndpoint(Guid.GUID id, PointerByReference errorRecord);

    int HcnCloseEndpoint(Pointer endpoint);

    // Load balancers (HcnModifyLoadBalancer is only usable from HNS 15.5)

    int HcnEnumerateLoadBalancers(WString query, PointerByReference loadBalancers, PointerByReference errorRecord);

    int HcnCreateLoadBalancer(Guid.GUID id, WString settings, PointerByReference loadBalancer,
                              PointerByReference errorRecord);

    int HcnOpenLoadBalancer(Guid.GUID id, PointerByReference loadBalancer, PointerByReference errorRecord);

    int HcnModifyLoadBalancer(Pointer loadBalancer, WString settings, PointerByReference errorRecord);

    int HcnQueryLoadBalancerProperties(Pointer loadBalancer, WString query, PointerByReference properties,
                                       PointerByReference errorRecord);

    int HcnDeleteLoadBalancer(Guid.GUID id, PointerByReference errorRecord);

    int HcnCloseLoadBalancer(Pointer loadBalancer);
}
