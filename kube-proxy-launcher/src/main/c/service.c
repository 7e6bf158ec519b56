/*
 * kube-proxy.exe as a Windows service: the SCM started this process (a service whose binary path is kube-proxy.exe,
 * as OpenShift WMCO and `sc.exe create` registrations have it), so this process, not the agent's JVM, must be the
 * one that connects to the SCM. It is SERVICE_WIN32_OWN_PROCESS; the agent runs as its child.
 *
 * What is reported when is svcstate.c's decision; this file carries it out:
 *   - START_PENDING at once; the agent is started without a console (CREATE_NO_WINDOW; standard input on NUL,
 *     standard output and error this process's own when they are a file or pipe, as a log runner in front gives
 *     them, else NUL: its log goes where --log-file says) and with two inheritable events named in its environment:
 *     WINPROXY_STOP_EVENT, which this process sets to ask it to stop gracefully (a service has no console for
 *     Ctrl+C, and Java would take Ctrl+Break for a thread dump), and WINPROXY_READY_EVENT, which the agent sets once
 *     it serves; RUNNING then (or after the ready timeout).
 *   - STOP, SHUTDOWN, PRESHUTDOWN: STOP_PENDING with advancing checkpoints, the stop event set, the agent waited for
 *     up to the stop timeout and then terminated with its job.
 *   - STOPPED with the agent's exit code as the service-specific exit code (see svcstate.h for the mapping).
 * When the agent cannot be started (no Java, no agent jar), STOPPED with service-specific code LAUNCHER_FAILURE and
 * one Application event log entry (source "winproxy"), since a service has nowhere else to say why.
 *
 * Threads: the service-main thread runs the agent and the heartbeat; the control handler runs on the dispatcher's
 * (main) thread. Both go through the state machine under one lock and report with SetServiceStatus.
 */
#include "launcher.h"

#include <stdlib.h>
#include <tlhelp32.h>
#include <winsvc.h>

#include "svcstate.h"

_Static_assert(SVC_STOPPED == SERVICE_STOPPED && SVC_START_PENDING == SERVICE_START_PENDING
        && SVC_STOP_PENDING == SERVICE_STOP_PENDING && SVC_RUNNING == SERVICE_RUNNING, "states are winsvc.h's");
_Static_assert(SVC_CONTROL_STOP == SERVICE_CONTROL_STOP && SVC_CONTROL_INTERROGATE == SERVICE_CONTROL_INTERROGATE
        && SVC_CONTROL_SHUTDOWN == SERVICE_CONTROL_SHUTDOWN && SVC_CONTROL_PRESHUTDOWN == SERVICE_CONTROL_PRESHUTDOWN,
        "controls are winsvc.h's");
_Static_assert(SVC_ACCEPT_STOP == SERVICE_ACCEPT_STOP && SVC_ACCEPT_SHUTDOWN == SERVICE_ACCEPT_SHUTDOWN,
        "accepted controls are winsvc.h's");
_Static_assert(SVC_ERROR_SERVICE_SPECIFIC_ERROR == ERROR_SERVICE_SPECIFIC_ERROR
        && SVC_ERROR_CALL_NOT_IMPLEMENTED == ERROR_CALL_NOT_IMPLEMENTED && SVC_WAIT_FOREVER == INFINITE,
        "codes are winerror.h's");

/* The Application event log source (install-service.ps1 registers it; the agent reports under it too). */
#define EVENT_SOURCE L"winproxy"
/* The agent could not be started: the same ID the agent uses for a failed start. */
#define EVENT_ID_FAILED_START 1000
/* The agent did not stop within the stop timeout and was terminated. */
#define EVENT_ID_STOP_TIMEOUT 1001

/* The name the SCM passes to ServiceMain replaces this one; an own-process service's table name is not checked. */
#define DEFAULT_SERVICE_NAME L"kube-proxy"

static CRITICAL_SECTION lock;
static svc_machine machine;
static SERVICE_STATUS_HANDLE status_handle;
/* Manual-reset, inheritable: set once to ask the agent to stop; the agent waits on its inherited copy. */
static HANDLE stop_event;
/* Manual-reset, inheritable: the agent sets it once it serves. */
static HANDLE ready_event;
/* Auto-reset: wakes the service-main thread when the control handler changed the state. */
static HANDLE wake_event;
/* This process's exit code once the service has stopped: the service-specific code, or the Win32 one. */
static DWORD service_exit_code = LAUNCHER_FAILURE;

/* One entry in the Application log; best effort (nothing else could be told). */
static void report_event(WORD type, DWORD id, const wchar_t *message) {
    HANDLE log = RegisterEventSourceW(NULL, EVENT_SOURCE);
    if (log == NULL) {
        return;
    }
    wstring line = {0};
    append(&line, L"kube-proxy.exe: ");
    append(&line, message);
    LPCWSTR strings[] = {line.text};
    ReportEventW(log, type, 0, id, NULL, 1, 0, strings, NULL);
    DeregisterEventSource(log);
    free(line.text);
}

/* Carries out a step's report and stop signal; call with the lock held. */
static void apply(const svc_step *step) {
    if (step->actions & SVC_DO_REPORT) {
        SERVICE_STATUS status;
        ZeroMemory(&status, sizeof(status));
        status.dwServiceType = SERVICE_WIN32_OWN_PROCESS;
        status.dwCurrentState = step->status.current_state;
        status.dwControlsAccepted = step->status.controls_accepted;
        status.dwWin32ExitCode = step->status.win32_exit_code;
        status.dwServiceSpecificExitCode = step->status.service_specific_exit_code;
        status.dwCheckPoint = step->status.check_point;
        status.dwWaitHint = step->status.wait_hint;
        if (status.dwCurrentState == SERVICE_STOPPED) {
            service_exit_code = status.dwWin32ExitCode == ERROR_SERVICE_SPECIFIC_ERROR
                    ? status.dwServiceSpecificExitCode : status.dwWin32ExitCode;
        }
        /* A failed report cannot be reported; the next one may succeed. */
        SetServiceStatus(status_handle, &status);
    }
    if ((step->actions & SVC_DO_SIGNAL_STOP) && stop_event != NULL) {
        SetEvent(stop_event);
    }
}

typedef svc_step (*transition)(svc_machine *machine, uint64_t now);

/* Runs one transition of the machine under the lock and carries out its report and stop signal. */
static svc_step step_locked(transition event) {
    EnterCriticalSection(&lock);
    svc_step step = event(&machine, GetTickCount64());
    apply(&step);
    LeaveCriticalSection(&lock);
    return step;
}

static DWORD WINAPI on_service_control(DWORD control, DWORD event_type, LPVOID event_data, LPVOID context) {
    (void) event_type;
    (void) event_data;
    (void) context;
    EnterCriticalSection(&lock);
    svc_step step = svc_control(&machine, control, GetTickCount64());
    apply(&step);
    LeaveCriticalSection(&lock);
    if (step.actions != 0 && wake_event != NULL) {
        SetEvent(wake_event);
    }
    return step.handler_result;
}

/* Reports STOPPED for an agent that could not be started, and says why in the event log. */
static void launch_failed(const wchar_t *message) {
    report_event(EVENTLOG_ERROR_TYPE, EVENT_ID_FAILED_START, message);
    EnterCriticalSection(&lock);
    svc_step step = svc_launch_failed(&machine, LAUNCHER_FAILURE, GetTickCount64());
    apply(&step);
    LeaveCriticalSection(&lock);
}

static HANDLE inheritable_event(void) {
    SECURITY_ATTRIBUTES inherit = {sizeof(SECURITY_ATTRIBUTES), NULL, TRUE};
    return CreateEventW(&inherit, TRUE, FALSE, NULL);
}

/* Names an inheritable handle in the environment the agent inherits, as its decimal value. */
static void export_handle(const wchar_t *variable, HANDLE handle) {
    wchar_t digits[24];
    size_t first = sizeof(digits) / sizeof(digits[0]) - 1;
    digits[first] = L'\0';
    unsigned long long value = (unsigned long long) (ULONG_PTR) handle;
    do {
        digits[--first] = (wchar_t) (L'0' + value % 10);
        value /= 10;
    } while (value != 0);
    SetEnvironmentVariableW(variable, digits + first);
}

/* NUL, for the agent's standard handles: it has no console, and its log goes where --log-file says. */
static HANDLE null_device(DWORD access) {
    SECURITY_ATTRIBUTES inherit = {sizeof(SECURITY_ATTRIBUTES), NULL, TRUE};
    HANDLE device = CreateFileW(L"NUL", access, FILE_SHARE_READ | FILE_SHARE_WRITE, &inherit, OPEN_EXISTING,
            FILE_ATTRIBUTE_NORMAL, NULL);
    return device == INVALID_HANDLE_VALUE ? NULL : device;
}

/*
 * The agent's handle for standard output or error: an inheritable duplicate of this process's own when that is a
 * file or a pipe, else NUL. The SCM starts a service without standard handles; a log runner in front of the
 * service's binary (OpenShift WMCO's `kube-log-runner.exe -log-file=... kube-proxy.exe ... --windows-service`) hands
 * it a file or pipe, and what the agent writes must reach the runner's file, as upstream kube-proxy's output does.
 */
static HANDLE agent_output(DWORD which) {
    HANDLE own = GetStdHandle(which);
    HANDLE copy = NULL;
    if (own != NULL && own != INVALID_HANDLE_VALUE) {
        DWORD type = GetFileType(own);
        if ((type == FILE_TYPE_DISK || type == FILE_TYPE_PIPE)
                && DuplicateHandle(GetCurrentProcess(), own, GetCurrentProcess(), &copy, 0, TRUE,
                        DUPLICATE_SAME_ACCESS)) {
            return copy;
        }
    }
    return null_device(GENERIC_WRITE);
}

/* Ends the agent that outlived the stop timeout: its whole job, or the process when it is in none. */
static void terminate_agent(const agent_launch *launch) {
    wchar_t message[160];
    _snwprintf(message, 160, L"the agent did not stop within %lu s of the stop request; terminating it",
            (unsigned long) (machine.timings.stop_timeout_ms / 1000));
    message[159] = L'\0';
    report_event(EVENTLOG_WARNING_TYPE, EVENT_ID_STOP_TIMEOUT, message);
    if (launch->job == NULL || !TerminateJobObject(launch->job, LAUNCHER_FAILURE)) {
        TerminateProcess(launch->process, LAUNCHER_FAILURE);
    }
}

/* Reports STOPPED for the agent that has ended. */
static void agent_exited(const agent_launch *launch) {
    DWORD code = LAUNCHER_FAILURE;
    if (!GetExitCodeProcess(launch->process, &code)) {
        code = LAUNCHER_FAILURE;
    }
    EnterCriticalSection(&lock);
    svc_step step = svc_child_exited(&machine, code, GetTickCount64());
    apply(&step);
    LeaveCriticalSection(&lock);
}

/* Starts the agent and reports its life until it has ended; returns after STOPPED was reported. */
static void run_agent(void) {
    wstring error = {0};
    stop_event = inheritable_event();
    ready_event = inheritable_event();
    if (stop_event == NULL || ready_event == NULL) {
        append(&error, L"cannot create the agent's stop and ready events: ");
        append_error(&error, GetLastError());
        launch_failed(error.text);
        return;
    }
    agent_launch launch;
    if (!prepare_agent_launch(&launch, &error)) {
        launch_failed(error.text);
        return;
    }
    export_handle(STOP_EVENT_VARIABLE, stop_event);
    export_handle(READY_EVENT_VARIABLE, ready_event);

    svc_step step = step_locked(svc_before_launch);
    if (!(step.actions & SVC_DO_LAUNCH)) {
        return; /* a stop came first: STOPPED was reported */
    }
    HANDLE input = null_device(GENERIC_READ);
    HANDLE output = agent_output(STD_OUTPUT_HANDLE);
    HANDLE errors = agent_output(STD_ERROR_HANDLE);
    int started = start_agent(&launch, CREATE_NO_WINDOW, input, output, errors, &error);
    HANDLE passed[] = {input, output, errors};
    for (size_t i = 0; i < 3; i++) {
        if (passed[i] != NULL) {
            CloseHandle(passed[i]);
        }
    }
    if (!started) {
        launch_failed(error.text);
        return;
    }
    step_locked(svc_child_started);

    int ready_seen = 0;
    for (;;) {
        EnterCriticalSection(&lock);
        DWORD wait = svc_next_wait(&machine, GetTickCount64());
        LeaveCriticalSection(&lock);
        HANDLE handles[] = {launch.process, wake_event, ready_event};
        DWORD result = WaitForMultipleObjects(ready_seen ? 2 : 3, handles, FALSE, wait);
        if (result == WAIT_OBJECT_0) {
            agent_exited(&launch);
            return;
        }
        if (result == WAIT_OBJECT_0 + 2) {
            ready_seen = 1;
            step_locked(svc_ready);
            continue;
        }
        if (result == WAIT_FAILED) {
            /* Cannot supervise the agent any more: end it, and report how it ended. */
            TerminateProcess(launch.process, LAUNCHER_FAILURE);
            WaitForSingleObject(launch.process, INFINITE);
            agent_exited(&launch);
            return;
        }
        /* the handler changed the state, or a heartbeat or timeout is due */
        step = step_locked(svc_tick);
        if (step.actions & SVC_DO_TERMINATE) {
            terminate_agent(&launch);
        }
    }
}

static void WINAPI service_main(DWORD argc, LPWSTR *argv) {
    const wchar_t *name = argc > 0 && argv != NULL && argv[0] != NULL ? argv[0] : DEFAULT_SERVICE_NAME;
    wake_event = CreateEventW(NULL, FALSE, FALSE, NULL);
    status_handle = RegisterServiceCtrlHandlerExW(name, on_service_control, NULL);
    if (status_handle == NULL) {
        wstring error = {0};
        append(&error, L"cannot register the service control handler for ");
        append(&error, name);
        append(&error, L": ");
        append_error(&error, GetLastError());
        report_event(EVENTLOG_ERROR_TYPE, EVENT_ID_FAILED_START, error.text);
        return;
    }
    step_locked(svc_start);
    if (wake_event == NULL) {
        wstring error = {0};
        append(&error, L"cannot create an event: ");
        append_error(&error, GetLastError());
        launch_failed(error.text);
        return;
    }
    run_agent();
}

int run_service(DWORD *exit_code) {
    InitializeCriticalSection(&lock);
    svc_timings timings;
    svc_default_timings(&timings);
    svc_init(&machine, &timings);
    SERVICE_TABLE_ENTRYW table[] = {{(LPWSTR) DEFAULT_SERVICE_NAME, service_main}, {NULL, NULL}};
    if (!StartServiceCtrlDispatcherW(table)) {
        DWORD error = GetLastError();
        if (error == ERROR_FAILED_SERVICE_CONTROLLER_CONNECT) {
            return 0;
        }
        wstring message = {0};
        append(&message, L"cannot connect to the Service Control Manager: ");
        append_error(&message, error);
        print_error(message.text);
        report_event(EVENTLOG_ERROR_TYPE, EVENT_ID_FAILED_START, message.text);
        *exit_code = LAUNCHER_FAILURE;
        return 1;
    }
    *exit_code = service_exit_code;
    return 1;
}

int started_by_scm(void) {
    HANDLE snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
    if (snapshot == INVALID_HANDLE_VALUE) {
        return 0;
    }
    DWORD self = GetCurrentProcessId();
    DWORD parent = 0;
    int found = 0;
    PROCESSENTRY32W entry;
    entry.dwSize = sizeof(entry);
    for (BOOL more = Process32FirstW(snapshot, &entry); more; more = Process32NextW(snapshot, &entry)) {
        if (entry.th32ProcessID == self) {
            parent = entry.th32ParentProcessID;
            break;
        }
    }
    entry.dwSize = sizeof(entry);
    for (BOOL more = parent != 0 && Process32FirstW(snapshot, &entry); more;
            more = Process32NextW(snapshot, &entry)) {
        if (entry.th32ProcessID == parent) {
            DWORD session = 1;
            found = _wcsicmp(entry.szExeFile, L"services.exe") == 0 && ProcessIdToSessionId(parent, &session)
                    && session == 0;
            break;
        }
    }
    CloseHandle(snapshot);
    return found;
}
