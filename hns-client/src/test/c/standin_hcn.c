/*
 * The computenetwork.dll exports for networks, endpoints and load balancers over an in-memory store. Behaviour
 * follows hcn-api.md: callee-allocated PWSTR outs, error records on failure, ids assigned by the service when the
 * caller passes the zero GUID and the caller's id otherwise (HRESULT_FROM_WIN32(ERROR_ALREADY_EXISTS) when an object
 * of that kind already has it), objects opened by that id, Filter keys ID / Name / VirtualNetwork read from the
 * double-encoded query, a load balancer's endpoint references checked on create and modify.
 */
#define _GNU_SOURCE
#include "standin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wctype.h>

#define MAX_OBJECTS 256
#define ID_LENGTH 36

struct object {
    int used;
    enum object_kind kind;
    GUID id;
    wchar_t id_text[ID_LENGTH + 1];
    GUID network;
    wchar_t network_text[ID_LENGTH + 1];
    wchar_t *document;
};

static struct object objects[MAX_OBJECTS];
static uint32_t next_id = 1;
static int vanish_index = -1;

static const wchar_t *const INVALID_JSON = L"Invalid JSON document string.";
static const wchar_t *const NOT_FOUND = L"Element not found.";

void standin_store_reset(void) {
    for (int i = 0; i < MAX_OBJECTS; i++) {
        free(objects[i].document);
    }
    memset(objects, 0, sizeof objects);
    next_id = 1;
    vanish_index = -1;
}

/* After the next Enumerate call that lists more than index objects has produced its list, the object at this
 * position of the list is deleted, as if another process removed it between the caller's enumerate and open. */
EXPORT void standin_vanish_after_next_enumerate(int index) {
    vanish_index = index;
}

static void guid_text(const GUID *id, wchar_t *out) {
    swprintf(out, ID_LENGTH + 1, L"%08X-%04X-%04X-%02X%02X-%02X%02X%02X%02X%02X%02X", id->Data1, id->Data2,
             id->Data3, id->Data4[0], id->Data4[1], id->Data4[2], id->Data4[3], id->Data4[4], id->Data4[5],
             id->Data4[6], id->Data4[7]);
}

static int is_zero(const GUID *id) {
    static const GUID zero;
    return memcmp(id, &zero, sizeof zero) == 0;
}

static struct object *find(enum object_kind kind, const GUID *id) {
    for (int i = 0; i < MAX_OBJECTS; i++) {
        if (objects[i].used && objects[i].kind == kind && memcmp(&objects[i].id, id, sizeof *id) == 0) {
            return &objects[i];
        }
    }
    return NULL;
}

static struct object *find_text(enum object_kind kind, const wchar_t *id) {
    for (int i = 0; i < MAX_OBJECTS; i++) {
        if (objects[i].used && objects[i].kind == kind && wcscasecmp(objects[i].id_text, id) == 0) {
            return &objects[i];
        }
    }
    return NULL;
}

static int is_json_object(PCWSTR text) {
    if (text == NULL) {
        return 0;
    }
    size_t length = wcslen(text);
    while (length > 0 && iswspace(text[length - 1])) {
        length--;
    }
    while (*text != L'\0' && iswspace(*text)) {
        text++;
        length--;
    }
    return length >= 2 && text[0] == L'{' && text[length - 1] == L'}';
}

/* Copies the text between key (which ends with the value's opening quote) and the next end marker into out. */
static int string_member(PCWSTR document, const wchar_t *key, const wchar_t *end, wchar_t *out, size_t capacity) {
    const wchar_t *start = wcsstr(document, key);
    if (start == NULL) {
        return 0;
    }
    start += wcslen(key);
    const wchar_t *stop = wcsstr(start, end);
    if (stop == NULL || (size_t) (stop - start) >= capacity) {
        return 0;
    }
    wmemcpy(out, start, stop - start);
    out[stop - start] = L'\0';
    return 1;
}

/* The Filter of a HostComputeQuery is a JSON string holding a JSON object, so its quotes arrive escaped. */
static int filter_value(PCWSTR query, const wchar_t *name, wchar_t *out, size_t capacity) {
    wchar_t key[64];
    swprintf(key, 64, L"\\\"%ls\\\":\\\"", name);
    return string_member(query, key, L"\\\"", out, capacity);
}

static int document_value(PCWSTR document, const wchar_t *name, wchar_t *out, size_t capacity) {
    wchar_t key[64];
    swprintf(key, 64, L"\"%ls\":\"", name);
    return string_member(document, key, L"\"", out, capacity);
}

static int matches(const struct object *object, PCWSTR query) {
    wchar_t wanted[256];
    wchar_t actual[256];
    if (filter_value(query, L"ID", wanted, 256) && wcscasecmp(wanted, object->id_text) != 0) {
        return 0;
    }
    if (filter_value(query, L"Name", wanted, 256)
        && (!document_value(object->document, L"Name", actual, 256) || wcscmp(wanted, actual) != 0)) {
        return 0;
    }
    if (filter_value(query, L"VirtualNetwork", wanted, 256)
        && (object->kind != KIND_ENDPOINT || wcscasecmp(wanted, object->network_text) != 0)) {
        return 0;
    }
    return 1;
}

/* Every id in "HostComputeEndpoints":[...] must name an existing endpoint. */
static int references_valid(PCWSTR settings) {
    const wchar_t *list = wcsstr(settings, L"\"HostComputeEndpoints\":[");
    if (list == NULL) {
        return 1;
    }
    const wchar_t *p = list + wcslen(L"\"HostComputeEndpoints\":[");
    while (*p != L'\0' && *p != L']') {
        if (*p == L'"') {
            const wchar_t *close = wcschr(p + 1, L'"');
            if (close == NULL || close - p - 1 > ID_LENGTH + 2) {
                return 0;
            }
            wchar_t id[ID_LENGTH + 3];
            wmemcpy(id, p + 1, close - p - 1);
            id[close - p - 1] = L'\0';
            if (find_text(KIND_ENDPOINT, id) == NULL) {
                return 0;
            }
            p = close + 1;
        } else {
            p++;
        }
    }
    return 1;
}

/* The stored form of settings: the object's ID (and an endpoint's network) first, then the caller's members. */
static wchar_t *stored_document(const struct object *object, PCWSTR settings) {
    const wchar_t *body = wcschr(settings, L'{') + 1;
    size_t capacity = wcslen(body) + 128;
    wchar_t *document = malloc(capacity * sizeof(wchar_t));
    if (document == NULL) {
        return NULL;
    }
    wchar_t prefix[128];
    if (wcsstr(settings, L"\"ID\":\"") != NULL) {
        prefix[0] = L'\0';
    } else {
        swprintf(prefix, 128, L"\"ID\":\"%ls\"", object->id_text);
    }
    if (object->kind == KIND_ENDPOINT && wcsstr(settings, L"\"HostComputeNetwork\":\"") == NULL) {
        size_t used = wcslen(prefix);
        swprintf(prefix + used, 128 - used, L"%ls\"HostComputeNetwork\":\"%ls\"", used > 0 ? L"," : L"",
                 object->network_text);
    }
    int body_empty = wcsspn(body, L" \t\r\n}") == wcslen(body);
    swprintf(document, capacity, L"{%ls%ls%ls", prefix, prefix[0] != L'\0' && !body_empty ? L"," : L"", body);
    return document;
}

/* --- the shape every export shares: count the call, honour an injected failure, run, attach an injected record --- */

struct call {
    int faulted;
    HRESULT injected;
    PCWSTR record;
};

static int begin(struct call *call, const char *function, const GUID *id, PCWSTR text, PWSTR *errorRecord) {
    call->record = NULL;
    call->faulted = standin_enter(function, id, text, &call->injected, &call->record);
    if (errorRecord != NULL) {
        *errorRecord = NULL;
    }
    if (call->faulted && call->injected < 0) {
        if (call->record != NULL) {
            standin_give_string(errorRecord, call->record);
        }
        return 0;
    }
    return 1;
}

static HRESULT finish(const struct call *call, HRESULT hr, PWSTR *errorRecord) {
    if (call->faulted && call->record != NULL && errorRecord != NULL && *errorRecord == NULL) {
        standin_give_string(errorRecord, call->record);
    }
    return hr;
}

static HRESULT fail(PWSTR *errorRecord, HRESULT hr, const wchar_t *message) {
    standin_give_error(errorRecord, hr, message);
    return hr;
}

/* --- the generic operations --- */

static HRESULT enumerate(const char *function, enum object_kind kind, PCWSTR query, PWSTR *ids, PWSTR *errorRecord) {
    struct call call;
    if (ids != NULL) {
        *ids = NULL;
    }
    if (!begin(&call, function, NULL, query, errorRecord)) {
        return call.injected;
    }
    if (ids == NULL) {
        return E_POINTER;
    }
    if (!is_json_object(query)) {
        return finish(&call, fail(errorRecord, HCN_E_INVALID_JSON, INVALID_JSON), errorRecord);
    }
    static wchar_t list[MAX_OBJECTS * (ID_LENGTH + 3) + 3];
    struct object *listed[MAX_OBJECTS];
    int count = 0;
    size_t used = swprintf(list, 2, L"[");
    for (int i = 0; i < MAX_OBJECTS; i++) {
        if (objects[i].used && objects[i].kind == kind && matches(&objects[i], query)) {
            used += swprintf(list + used, sizeof list / sizeof list[0] - used, L"%ls\"%ls\"", count > 0 ? L"," : L"",
                             objects[i].id_text);
            listed[count++] = &objects[i];
        }
    }
    swprintf(list + used, sizeof list / sizeof list[0] - used, L"]");
    if (vanish_index >= 0 && vanish_index < count) {
        free(listed[vanish_index]->document);
        memset(listed[vanish_index], 0, sizeof *listed[vanish_index]);
        vanish_index = -1;
    }
    standin_give_string(ids, list);
    return finish(&call, S_OK, errorRecord);
}

static HRESULT create(const char *function, enum object_kind kind, HCN_HANDLE network, const GUID *id,
                      PCWSTR settings, HCN_HANDLE *handle, PWSTR *errorRecord) {
    struct call call;
    if (handle != NULL) {
        *handle = NULL;
    }
    if (!begin(&call, function, id, settings, errorRecord)) {
        return call.injected;
    }
    if (id == NULL || handle == NULL) {
        return E_POINTER;
    }
    const struct object *owner = NULL;
    if (kind == KIND_ENDPOINT) {
        const GUID *network_id = standin_handle_target(network, KIND_NETWORK);
        if (network_id == NULL) {
            return finish(&call, fail(errorRecord, E_HANDLE, L"The handle is invalid."), errorRecord);
        }
        owner = find(KIND_NETWORK, network_id);
        if (owner == NULL) {
            return finish(&call, fail(errorRecord, HCN_E_NETWORK_NOT_FOUND, L"The network was not found."),
                          errorRecord);
        }
    }
    if (!is_json_object(settings)) {
        return finish(&call, fail(errorRecord, HCN_E_INVALID_JSON, INVALID_JSON), errorRecord);
    }
    if (kind == KIND_LOAD_BALANCER && !references_valid(settings)) {
        return finish(&call, fail(errorRecord, HCN_E_INVALID_JSON_REFERENCE,
                                  L"The reference is invalid in the JSON document."), errorRecord);
    }
    wchar_t name[256];
    if (kind == KIND_NETWORK && document_value(settings, L"Name", name, 256)) {
        for (int i = 0; i < MAX_OBJECTS; i++) {
            wchar_t other[256];
            if (objects[i].used && objects[i].kind == KIND_NETWORK
                && document_value(objects[i].document, L"Name", other, 256) && wcscmp(name, other) == 0) {
                return finish(&call, fail(errorRecord, HCN_E_NETWORK_ALREADY_EXISTS,
                                          L"A network with this name already exists."), errorRecord);
            }
        }
    }
    struct object *object = NULL;
    for (int i = 0; i < MAX_OBJECTS && object == NULL; i++) {
        if (!objects[i].used) {
            object = &objects[i];
        }
    }
    if (object == NULL) {
        return finish(&call, fail(errorRecord, E_OUTOFMEMORY, L"Not enough memory resources are available."),
                      errorRecord);
    }
    GUID assigned = *id;
    if (is_zero(id)) {
        /* The service picks the id; deterministic values keep test failures reproducible. */
        assigned = (GUID) {0x5EED0000u + next_id, (uint16_t) (0x1000 + kind), 0x4ABC,
                           {0x8D, 0x1E, 0x00, 0x00, 0x00, 0x00, (uint8_t) (next_id >> 8), (uint8_t) next_id}};
        next_id++;
    } else if (find(kind, id) != NULL) {
        return finish(&call, fail(errorRecord, HRESULT_ERROR_ALREADY_EXISTS,
                                  L"Cannot create a file when that file already exists."), errorRecord);
    }
    object->kind = kind;
    object->id = assigned;
    guid_text(&assigned, object->id_text);
    if (owner != NULL) {
        object->network = owner->id;
        wcscpy(object->network_text, owner->id_text);
    }
    object->document = stored_document(object, settings);
    object->used = 1;
    *handle = standin_open_handle(kind, &assigned);
    return finish(&call, S_OK, errorRecord);
}

static HRESULT open_object(const char *function, enum object_kind kind, const GUID *id, HCN_HANDLE *handle,
                           PWSTR *errorRecord) {
    struct call call;
    if (handle != NULL) {
        *handle = NULL;
    }
    if (!begin(&call, function, id, NULL, errorRecord)) {
        return call.injected;
    }
    if (id == NULL || handle == NULL) {
        return E_POINTER;
    }
    if (find(kind, id) == NULL) {
        return finish(&call, fail(errorRecord, HRESULT_ERROR_NOT_FOUND, NOT_FOUND), errorRecord);
    }
    *handle = standin_open_handle(kind, id);
    return finish(&call, S_OK, errorRecord);
}

static HRESULT query_properties(const char *function, enum object_kind kind, HCN_HANDLE handle, PCWSTR query,
                                PWSTR *properties, PWSTR *errorRecord) {
    struct call call;
    if (properties != NULL) {
        *properties = NULL;
    }
    if (!begin(&call, function, NULL, query, errorRecord)) {
        return call.injected;
    }
    if (properties == NULL) {
        return E_POINTER;
    }
    const GUID *target = standin_handle_target(handle, kind);
    if (target == NULL) {
        return finish(&call, fail(errorRecord, E_HANDLE, L"The handle is invalid."), errorRecord);
    }
    if (!is_json_object(query)) {
        return finish(&call, fail(errorRecord, HCN_E_INVALID_JSON, INVALID_JSON), errorRecord);
    }
    const struct object *object = find(kind, target);
    if (object == NULL) {
        return finish(&call, fail(errorRecord, HRESULT_ERROR_NOT_FOUND, NOT_FOUND), errorRecord);
    }
    standin_give_string(properties, object->document);
    return finish(&call, S_OK, errorRecord);
}

static HRESULT modify(const char *function, enum object_kind kind, HCN_HANDLE handle, PCWSTR settings,
                      PWSTR *errorRecord) {
    struct call call;
    if (!begin(&call, function, NULL, settings, errorRecord)) {
        return call.injected;
    }
    const GUID *target = standin_handle_target(handle, kind);
    if (target == NULL) {
        return finish(&call, fail(errorRecord, E_HANDLE, L"The handle is invalid."), errorRecord);
    }
    struct object *object = find(kind, target);
    if (object == NULL) {
        return finish(&call, fail(errorRecord, HRESULT_ERROR_NOT_FOUND, NOT_FOUND), errorRecord);
    }
    if (!is_json_object(settings)) {
        return finish(&call, fail(errorRecord, HCN_E_INVALID_JSON, INVALID_JSON), errorRecord);
    }
    wchar_t id[256];
    if ((document_value(settings, L"ID", id, 256) && wcscasecmp(id, object->id_text) != 0)
        || !references_valid(settings)) {
        return finish(&call, fail(errorRecord, HCN_E_INVALID_JSON_REFERENCE,
                                  L"The reference is invalid in the JSON document."), errorRecord);
    }
    wchar_t *document = stored_document(object, settings);
    if (document == NULL) {
        return finish(&call, fail(errorRecord, E_OUTOFMEMORY, L"Not enough memory resources are available."),
                      errorRecord);
    }
    free(object->document);
    object->document = document;
    return finish(&call, S_OK, errorRecord);
}

static HRESULT delete_object(const char *function, enum object_kind kind, const GUID *id, PWSTR *errorRecord) {
    struct call call;
    if (!begin(&call, function, id, NULL, errorRecord)) {
        return call.injected;
    }
    struct object *object = id == NULL ? NULL : find(kind, id);
    if (object == NULL) {
        return finish(&call, fail(errorRecord, HRESULT_ERROR_NOT_FOUND, NOT_FOUND), errorRecord);
    }
    free(object->document);
    memset(object, 0, sizeof *object);
    return finish(&call, S_OK, errorRecord);
}

static HRESULT close_object(const char *function, enum object_kind kind, HCN_HANDLE handle) {
    struct call call;
    if (!begin(&call, function, NULL, NULL, NULL)) {
        return call.injected;
    }
    return standin_close_handle(handle, kind);
}

/* --- networks --- */

EXPORT HRESULT HcnEnumerateNetworks(PCWSTR Query, PWSTR *Networks, PWSTR *ErrorRecord) {
    return enumerate(__func__, KIND_NETWORK, Query, Networks, ErrorRecord);
}

EXPORT HRESULT HcnCreateNetwork(const GUID *Id, PCWSTR Settings, HCN_HANDLE *Network, PWSTR *ErrorRecord) {
    return create(__func__, KIND_NETWORK, NULL, Id, Settings, Network, ErrorRecord);
}

EXPORT HRESULT HcnOpenNetwork(const GUID *Id, HCN_HANDLE *Network, PWSTR *ErrorRecord) {
    return open_object(__func__, KIND_NETWORK, Id, Network, ErrorRecord);
}

EXPORT HRESULT HcnQueryNetworkProperties(HCN_HANDLE Network, PCWSTR Query, PWSTR *Properties, PWSTR *ErrorRecord) {
    return query_properties(__func__, KIND_NETWORK, Network, Query, Properties, ErrorRecord);
}

EXPORT HRESULT HcnDeleteNetwork(const GUID *Id, PWSTR *ErrorRecord) {
    return delete_object(__func__, KIND_NETWORK, Id, ErrorRecord);
}

EXPORT HRESULT HcnCloseNetwork(HCN_HANDLE Network) {
    return close_object(__func__, KIND_NETWORK, Network);
}

/* --- endpoints --- */

EXPORT HRESULT HcnEnumerateEndpoints(PCWSTR Query, PWSTR *Endpoints, PWSTR *ErrorRecord) {
    return enumerate(__func__, KIND_ENDPOINT, Query, Endpoints, ErrorRecord);
}

EXPORT HRESULT HcnCreateEndpoint(HCN_HANDLE Network, const GUID *Id, PCWSTR Settings, HCN_HANDLE *Endpoint,
                                 PWSTR *ErrorRecord) {
    return create(__func__, KIND_ENDPOINT, Network, Id, Settings, Endpoint, ErrorRecord);
}

EXPORT HRESULT HcnOpenEndpoint(const GUID *Id, HCN_HANDLE *Endpoint, PWSTR *ErrorRecord) {
    return open_object(__func__, KIND_ENDPOINT, Id, Endpoint, ErrorRecord);
}

EXPORT HRESULT HcnQueryEndpointProperties(HCN_HANDLE Endpoint, PCWSTR Query, PWSTR *Properties,
                                          PWSTR *ErrorRecord) {
    return query_properties(__func__, KIND_ENDPOINT, Endpoint, Query, Properties, ErrorRecord);
}

EXPORT HRESULT HcnDeleteEndpoint(const GUID *Id, PWSTR *ErrorRecord) {
    return delete_object(__func__, KIND_ENDPOINT, Id, ErrorRecord);
}

EXPORT HRESULT HcnCloseEndpoint(HCN_HANDLE Endpoint) {
    return close_object(__func__, KIND_ENDPOINT, Endpoint);
}

/* --- load balancers --- */

EXPORT HRESULT HcnEnumerateLoadBalancers(PCWSTR Query, PWSTR *LoadBalancer, PWSTR *ErrorRecord) {
    return enumerate(__func__, KIND_LOAD_BALANCER, Query, LoadBalancer, ErrorRecord);
}

EXPORT HRESULT HcnCreateLoadBalancer(const GUID *Id, PCWSTR Settings, HCN_HANDLE *LoadBalancer, PWSTR *ErrorRecord) {
    return create(__func__, KIND_LOAD_BALANCER, NULL, Id, Settings, LoadBalancer, ErrorRecord);
}

EXPORT HRESULT HcnOpenLoadBalancer(const GUID *Id, HCN_HANDLE *LoadBalancer, PWSTR *ErrorRecord) {
    return open_object(__func__, KIND_LOAD_BALANCER, Id, LoadBalancer, ErrorRecord);
}

EXPORT HRESULT HcnModifyLoadBalancer(HCN_HANDLE LoadBalancer, PCWSTR Settings, PWSTR *ErrorRecord) {
    return modify(__func__, KIND_LOAD_BALANCER, LoadBalancer, Settings, ErrorRecord);
}

EXPORT HRESULT HcnQueryLoadBalancerProperties(HCN_HANDLE LoadBalancer, PCWSTR Query, PWSTR *Properties,
                                              PWSTR *ErrorRecord) {
    return query_properties(__func__, KIND_LOAD_BALANCER, LoadBalancer, Query, Properties, ErrorRecord);
}

EXPORT HRESULT HcnDeleteLoadBalancer(const GUID *Id, PWSTR *ErrorRecord) {
    return delete_object(__func__, KIND_LOAD_BALANCER, Id, ErrorRecord);
}

EXPORT HRESULT HcnCloseLoadBalancer(HCN_HANDLE LoadBalancer) {
    return close_object(__func__, KIND_LOAD_BALANCER, LoadBalancer);
}
