/*
 * A stand-in for computenetwork.dll, vmcompute.dll!HNSCall and ole32.dll!CoTaskMemFree, built with gcc for the
 * native-contract tests of io.winproxy.hns.windows. It exports the HCN functions with the exact C prototypes of
 * ComputeNetwork.h (wchar_t strings, GUIDs by pointer, opaque handles, callee-allocated PWSTR outs) over a small
 * in-memory store, and test-only functions (prefix standin_) that expose counters and inject failures.
 *
 * Contract with the tests: every string handed out is allocated here and must come back exactly once through
 * CoTaskMemFree; every handle handed out must come back exactly once through the matching HcnCloseXxx. The
 * library is single-threaded (JUnit runs the native tests one at a time).
 */
#ifndef WINPROXY_STANDIN_H
#define WINPROXY_STANDIN_H

#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

#define EXPORT __attribute__((visibility("default")))

typedef int32_t HRESULT;
typedef const wchar_t *PCWSTR;
typedef wchar_t *PWSTR;

/* The Windows GUID layout: Data1/2/3 in the machine's (little-endian) byte order, Data4 as bytes. */
typedef struct {
    uint32_t Data1;
    uint16_t Data2;
    uint16_t Data3;
    uint8_t Data4[8];
} GUID;

typedef void *HCN_HANDLE;

#define S_OK ((HRESULT) 0)
#define E_NOTIMPL ((HRESULT) 0x80004001)
#define E_POINTER ((HRESULT) 0x80004003)
#define E_HANDLE ((HRESULT) 0x80070006)
#define E_INVALIDARG ((HRESULT) 0x80070057)
#define E_OUTOFMEMORY ((HRESULT) 0x8007000E)
#define HRESULT_ERROR_ALREADY_EXISTS ((HRESULT) 0x800700B7)
#define HRESULT_ERROR_NOT_FOUND ((HRESULT) 0x80070490)
#define HCN_E_NETWORK_NOT_FOUND ((HRESULT) 0x803B0001)
#define HCN_E_NETWORK_ALREADY_EXISTS ((HRESULT) 0x803B0010)
#define HCN_E_INVALID_JSON ((HRESULT) 0x803B001B)
#define HCN_E_INVALID_JSON_REFERENCE ((HRESULT) 0x803B001C)

enum object_kind { KIND_NETWORK = 0, KIND_ENDPOINT = 1, KIND_LOAD_BALANCER = 2 };

/* --- runtime (standin_runtime.c): memory, handles, faults, call counters, captured inputs --- */

/* A CoTaskMem-style copy of text (NULL stays NULL), tracked until CoTaskMemFree. */
PWSTR standin_alloc_string(PCWSTR text);

/* Stores a copy of text in *out when out is not NULL. */
void standin_give_string(PWSTR *out, PCWSTR text);

/* An error record {"Success":false,"Error":"<message>","ErrorCode":<hr as uint32>} in *errorRecord. */
void standin_give_error(PWSTR *errorRecord, HRESULT hr, PCWSTR message);

/* A new open handle on an object. */
HCN_HANDLE standin_open_handle(enum object_kind kind, const GUID *id);

/* The object a live handle of this kind refers to, or NULL when the handle is unknown, closed or of another kind. */
const GUID *standin_handle_target(HCN_HANDLE handle, enum object_kind kind);

/* Releases a handle; E_HANDLE for an unknown, already closed or wrong-kind handle. */
HRESULT standin_close_handle(HCN_HANDLE handle, enum object_kind kind);

/*
 * Counts a call of an export, appends its name to the call log, records its string and GUID inputs, and consumes a
 * failure injected for it.
 * Returns 1 with *hr and *record set when a failure was injected, 0 otherwise. record may be NULL.
 */
int standin_enter(const char *function, const GUID *id, PCWSTR text, HRESULT *hr, PCWSTR *record);

/* The store (standin_hcn.c) is cleared by standin_reset. */
void standin_store_reset(void);

/* HNS version reported by HNSCall GET /globals/version. */
int standin_version_major(void);
int standin_version_minor(void);

#endif
