/*
 * The stand-in's bookkeeping: CoTaskMem allocations and frees, handle opens and closes, per-export call counters
 * with their last inputs, and injected failures. Everything here is exported for the Java tests to read.
 */
#define _GNU_SOURCE
#include "standin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STRINGS 4096
#define MAX_HANDLES 4096
#define MAX_FUNCTIONS 64
#define MAX_FAULTS 16
#define CALL_LOG_SIZE 65536

struct handle {
    int used;
    int open;
    enum object_kind kind;
    GUID target;
};

struct function_stats {
    char name[64];
    int calls;
    wchar_t *last_text;
    int has_guid;
    GUID last_guid;
};

struct fault {
    int used;
    char function[64];
    HRESULT hr;
    wchar_t *record;
};

static void *live_strings[MAX_STRINGS];
static int strings_allocated;
static int strings_freed;
static int bad_frees;

static struct handle handles[MAX_HANDLES];
static int handles_opened;
static int handles_closed;
static int bad_closes;

static struct function_stats functions[MAX_FUNCTIONS];
static struct fault faults[MAX_FAULTS];
static struct fault consumed_fault;

/* The export names called since the last reset or clear, comma-separated, in call order. */
static char call_log[CALL_LOG_SIZE];
static size_t call_log_length;
static int call_log_overflow;

static int version_major = 15;
static int version_minor = 4;

static wchar_t *copy_text(PCWSTR text) {
    if (text == NULL) {
        return NULL;
    }
    size_t length = wcslen(text);
    wchar_t *copy = malloc((length + 1) * sizeof(wchar_t));
    if (copy != NULL) {
        wmemcpy(copy, text, length + 1);
    }
    return copy;
}

PWSTR standin_alloc_string(PCWSTR text) {
    if (text == NULL) {
        return NULL;
    }
    for (int i = 0; i < MAX_STRINGS; i++) {
        if (live_strings[i] == NULL) {
            wchar_t *copy = copy_text(text);
            live_strings[i] = copy;
            if (copy != NULL) {
                strings_allocated++;
            }
            return copy;
        }
    }
    return NULL;
}

void standin_give_string(PWSTR *out, PCWSTR text) {
    if (out != NULL) {
        *out = standin_alloc_string(text);
    }
}

void standin_give_error(PWSTR *errorRecord, HRESULT hr, PCWSTR message) {
    wchar_t record[512];
    swprintf(record, sizeof record / sizeof record[0], L"{\"Success\":false,\"Error\":\"%ls\",\"ErrorCode\":%u}",
             message, (uint32_t) hr);
    standin_give_string(errorRecord, record);
}

/* ole32.dll!CoTaskMemFree: NULL is a no-op; a pointer this library did not hand out (or already took back) is
 * counted as a bad free and left alone. */
EXPORT void CoTaskMemFree(void *memory) {
    if (memory == NULL) {
        return;
    }
    for (int i = 0; i < MAX_STRINGS; i++) {
        if (live_strings[i] == memory) {
            live_strings[i] = NULL;
            free(memory);
            strings_freed++;
            return;
        }
    }
    bad_frees++;
}

HCN_HANDLE standin_open_handle(enum object_kind kind, const GUID *id) {
    for (int i = 0; i < MAX_HANDLES; i++) {
        if (!handles[i].used) {
            handles[i].used = 1;
            handles[i].open = 1;
            handles[i].kind = kind;
            handles[i].target = *id;
            handles_opened++;
            return &handles[i];
        }
    }
    return NULL;
}

static struct handle *find_handle(HCN_HANDLE value, enum object_kind kind) {
    struct handle *h = value;
    if (h < handles || h >= handles + MAX_HANDLES || !h->used || !h->open || h->kind != kind) {
        return NULL;
    }
    return h;
}

const GUID *standin_handle_target(HCN_HANDLE handle, enum object_kind kind) {
    struct handle *h = find_handle(handle, kind);
    return h == NULL ? NULL : &h->target;
}

HRESULT standin_close_handle(HCN_HANDLE handle, enum object_kind kind) {
    struct handle *h = find_handle(handle, kind);
    if (h == NULL) {
        bad_closes++;
        return E_HANDLE;
    }
    /* Slots are not reused before standin_reset, so a second close of the same value is always detected. */
    h->open = 0;
    handles_closed++;
    return S_OK;
}

static struct function_stats *stats_of(const char *function, int create) {
    for (int i = 0; i < MAX_FUNCTIONS; i++) {
        if (functions[i].name[0] != '\0' && strcmp(functions[i].name, function) == 0) {
            return &functions[i];
        }
    }
    if (!create) {
        return NULL;
    }
    for (int i = 0; i < MAX_FUNCTIONS; i++) {
        if (functions[i].name[0] == '\0') {
            snprintf(functions[i].name, sizeof functions[i].name, "%s", function);
            return &functions[i];
        }
    }
    return NULL;
}

static void log_call(const char *function) {
    size_t needed = strlen(function) + (call_log_length > 0 ? 1 : 0);
    if (call_log_length + needed >= CALL_LOG_SIZE) {
        call_log_overflow = 1;
        return;
    }
    call_log_length += snprintf(call_log + call_log_length, CALL_LOG_SIZE - call_log_length, "%s%s",
                                call_log_length > 0 ? "," : "", function);
}

int standin_enter(const char *function, const GUID *id, PCWSTR text, HRESULT *hr, PCWSTR *record) {
    log_call(function);
    struct function_stats *stats = stats_of(function, 1);
    if (stats != NULL) {
        stats->calls++;
        free(stats->last_text);
        stats->last_text = copy_text(text);
        stats->has_guid = id != NULL;
        if (id != NULL) {
            stats->last_guid = *id;
        }
    }
    for (int i = 0; i < MAX_FAULTS; i++) {
        if (faults[i].used && strcmp(faults[i].function, function) == 0) {
            free(consumed_fault.record);
            consumed_fault = faults[i];
            faults[i].used = 0;
            faults[i].record = NULL;
            *hr = consumed_fault.hr;
            if (record != NULL) {
                *record = consumed_fault.record;
            }
            return 1;
        }
    }
    return 0;
}

int standin_version_major(void) {
    return version_major;
}

int standin_version_minor(void) {
    return version_minor;
}

/* --- exports for the tests --- */

/*
 * The next call of function fails: with hr < 0 it returns hr (and record as ErrorRecord, if not NULL) without
 * doing anything; with hr == 0 it does its work and still returns record as ErrorRecord (HNS's "failure with
 * S_OK"). For HNSCall, record replaces the response document.
 */
EXPORT int standin_fail_next(const char *function, HRESULT hr, PCWSTR record) {
    for (int i = 0; i < MAX_FAULTS; i++) {
        if (!faults[i].used) {
            faults[i].used = 1;
            snprintf(faults[i].function, sizeof faults[i].function, "%s", function);
            faults[i].hr = hr;
            faults[i].record = copy_text(record);
            return 1;
        }
    }
    return 0;
}

EXPORT void standin_set_version(int major, int minor) {
    version_major = major;
    version_minor = minor;
}

EXPORT int standin_call_count(const char *function) {
    struct function_stats *stats = stats_of(function, 0);
    return stats == NULL ? 0 : stats->calls;
}

/* The last string input of function (Query, Settings, or "METHOD PATH REQUEST" for HNSCall), or NULL. */
EXPORT PCWSTR standin_last_text(const char *function) {
    struct function_stats *stats = stats_of(function, 0);
    return stats == NULL ? NULL : stats->last_text;
}

/* Copies the 16 bytes of the last GUID function received, exactly as they arrived; 0 when it got none. */
EXPORT int standin_last_guid(const char *function, uint8_t *out) {
    struct function_stats *stats = stats_of(function, 0);
    if (stats == NULL || !stats->has_guid) {
        return 0;
    }
    memcpy(out, &stats->last_guid, sizeof(GUID));
    return 1;
}

/* Every export called since the last reset or standin_clear_call_log, comma-separated in call order; NULL when
 * the log overflowed. */
EXPORT const char *standin_call_log(void) {
    return call_log_overflow ? NULL : call_log;
}

EXPORT void standin_clear_call_log(void) {
    call_log[0] = '\0';
    call_log_length = 0;
    call_log_overflow = 0;
}

EXPORT int standin_strings_allocated(void) {
    return strings_allocated;
}

EXPORT int standin_strings_freed(void) {
    return strings_freed;
}

EXPORT int standin_bad_frees(void) {
    return bad_frees;
}

EXPORT int standin_handles_opened(void) {
    return handles_opened;
}

/* Closes every handle still open, as if the process that held them exited; returns how many. For tests that inject
 * a failure into a close (the injected failure skips the close) and cannot reach the raw handle. */
EXPORT int standin_release_open_handles(void) {
    int released = 0;
    for (int i = 0; i < MAX_HANDLES; i++) {
        if (handles[i].used && handles[i].open) {
            handles[i].open = 0;
            handles_closed++;
            released++;
        }
    }
    return released;
}

EXPORT int standin_handles_closed(void) {
    return handles_closed;
}

EXPORT int standin_bad_closes(void) {
    return bad_closes;
}

/* Forgets everything: objects, counters, captured inputs, pending faults; the version goes back to 15.4. */
EXPORT void standin_reset(void) {
    for (int i = 0; i < MAX_STRINGS; i++) {
        free(live_strings[i]);
        live_strings[i] = NULL;
    }
    strings_allocated = strings_freed = bad_frees = 0;
    memset(handles, 0, sizeof handles);
    handles_opened = handles_closed = bad_closes = 0;
    for (int i = 0; i < MAX_FUNCTIONS; i++) {
        free(functions[i].last_text);
    }
    memset(functions, 0, sizeof functions);
    for (int i = 0; i < MAX_FAULTS; i++) {
        free(faults[i].record);
    }
    memset(faults, 0, sizeof faults);
    free(consumed_fault.record);
    memset(&consumed_fault, 0, sizeof consumed_fault);
    standin_clear_call_log();
    version_major = 15;
    version_minor = 4;
    standin_store_reset();
}
