/*
 * vmcompute.dll!HNSCall, the v1 REST-like tunnel: only GET /globals/version is served (the version probe); every
 * other request gets a v1 failure envelope, as HNS answers an unknown path.
 */
#define _GNU_SOURCE
#include "standin.h"

#include <stdio.h>

EXPORT HRESULT HNSCall(PCWSTR Method, PCWSTR Path, PCWSTR Request, PWSTR *Response) {
    wchar_t request[512];
    swprintf(request, sizeof request / sizeof request[0], L"%ls %ls %ls", Method == NULL ? L"(null)" : Method,
             Path == NULL ? L"(null)" : Path, Request == NULL ? L"(null)" : Request);
    HRESULT injected = S_OK;
    PCWSTR record = NULL;
    int faulted = standin_enter("HNSCall", NULL, request, &injected, &record);
    if (Response == NULL) {
        return E_POINTER;
    }
    *Response = NULL;
    if (faulted && injected < 0) {
        return injected;
    }
    if (faulted && record != NULL) {
        standin_give_string(Response, record);
        return S_OK;
    }
    if (Method == NULL || Path == NULL || Request == NULL) {
        return E_INVALIDARG;
    }
    wchar_t response[256];
    if (wcscmp(Method, L"GET") == 0 && wcscmp(Path, L"/globals/version") == 0) {
        swprintf(response, 256, L"{\"Success\":true,\"Output\":{\"Major\":%d,\"Minor\":%d}}", standin_version_major(),
                 standin_version_minor());
    } else {
        swprintf(response, 256, L"{\"Success\":false,\"Error\":\"Invalid request path: %ls %ls\"}", Method, Path);
    }
    standin_give_string(Response, response);
    return S_OK;
}
