/*
 * A stand-in java.exe for the launcher's tests on a Windows API (KubeProxyExeWineIT, KubeProxyExeServiceWineIT): the
 * tests put it where kube-proxy.exe looks for a runtime (<dir>\jre\bin\java.exe), so that kube-proxy.exe starts it
 * instead of a JVM. It splits its own command line with CommandLineToArgvW (the rules a JVM's launcher follows for the
 * text kube-proxy.exe writes) and behaves as the agent would:
 *
 *   - always: writes to stdout, UTF-8, each field followed by a NUL: its process id, the number of arguments after
 *     "-jar <jar>", then those arguments (what the agent would receive);
 *   - STANDIN_JVM_OPTIONS=1: writes the JVM options (the arguments before "-jar") in place of the agent's;
 *   - STANDIN_EXIT=N: exits with N (default 0);
 *   - STANDIN_WAIT=1: runs until it is killed;
 *   - STANDIN_CTRL_C=1: runs until a Ctrl+C reaches it, then writes "ctrl-c" and a NUL and exits with 130;
 *   - as a service's agent (the arguments of ServiceAgentStandIn: --stand-in-record=FILE, --stand-in-fail=N,
 *     --stand-in-never-ready, --stand-in-ignore-stop, --stand-in-exit=N, --stand-in-say=TEXT, which writes
 *     "TEXT stdout" and "TEXT stderr" to its standard output and error): follows the launcher's service contract
 *     (signals %WINPROXY_READY_EVENT%, ends when %WINPROXY_STOP_EVENT% is signalled) and records one line per event
 *     in FILE ("started ...", "ready", "stop signalled", "exit N").
 * Test code: failures of its own end it with exit code 99.
 */
#include <windows.h>
#include <shellapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <wchar.h>

#define STANDIN_FAILURE 99

static HANDLE out;
static const wchar_t *record_file;

static void write_utf8(HANDLE to, const wchar_t *text, size_t length, int nul) {
    int size = length == 0 ? 0 : WideCharToMultiByte(CP_UTF8, 0, text, (int) length, NULL, 0, NULL, NULL);
    char *bytes = malloc((size_t) size + 1);
    if (bytes == NULL) {
        ExitProcess(STANDIN_FAILURE);
    }
    if (size > 0) {
        WideCharToMultiByte(CP_UTF8, 0, text, (int) length, bytes, size, NULL, NULL);
    }
    if (nul) {
        bytes[size++] = '\0';
    }
    DWORD written;
    WriteFile(to, bytes, (DWORD) size, &written, NULL);
    free(bytes);
}

static void field(const wchar_t *text) {
    write_utf8(out, text, wcslen(text), 1);
}

static void number_field(long long value) {
    wchar_t number[32];
    _snwprintf(number, 32, L"%lld", value);
    number[31] = L'\0';
    field(number);
}

/* Appends one line to the record file (--stand-in-record), if any. */
static void record(const wchar_t *line) {
    if (record_file == NULL) {
        return;
    }
    HANDLE file = CreateFileW(record_file, FILE_APPEND_DATA, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_ALWAYS,
            FILE_ATTRIBUTE_NORMAL, NULL);
    if (file == INVALID_HANDLE_VALUE) {
        ExitProcess(STANDIN_FAILURE);
    }
    write_utf8(file, line, wcslen(line), 0);
    write_utf8(file, L"\r\n", 2, 0);
    CloseHandle(file);
}

static void record_exit(int code) {
    wchar_t line[32];
    _snwprintf(line, 32, L"exit %d", code);
    line[31] = L'\0';
    record(line);
    ExitProcess((UINT) code);
}

static int environment_number(const wchar_t *name, int fallback) {
    wchar_t value[32];
    DWORD length = GetEnvironmentVariableW(name, value, 32);
    return length > 0 && length < 32 ? _wtoi(value) : fallback;
}

static BOOL WINAPI on_ctrl_c(DWORD event) {
    if (event == CTRL_C_EVENT) {
        field(L"ctrl-c");
        ExitProcess(130);
    }
    return FALSE;
}

static HANDLE event_from(const wchar_t *variable) {
    wchar_t value[32];
    DWORD length = GetEnvironmentVariableW(variable, value, 32);
    return length > 0 && length < 32 ? (HANDLE) (INT_PTR) _wtoi64(value) : NULL;
}

/* The agent's side of the launcher's service contract, as ServiceAgentStandIn plays it on Windows. */
static void run_as_service_agent(int argc, wchar_t **argv, int first) {
    int exit_code = 0;
    int fail = -1;
    int never_ready = 0;
    int ignore_stop = 0;
    size_t size = 64;
    for (int i = first; i < argc; i++) {
        size += wcslen(argv[i]) + 1;
    }
    wchar_t *started = calloc(size, sizeof(wchar_t));
    if (started == NULL) {
        ExitProcess(STANDIN_FAILURE);
    }
    wcscpy(started, L"started");
    for (int i = first; i < argc; i++) {
        wcscat(started, L" ");
        wcscat(started, argv[i]);
        if (wcsncmp(argv[i], L"--stand-in-record=", 18) == 0) {
            record_file = argv[i] + 18;
        } else if (wcsncmp(argv[i], L"--stand-in-exit=", 16) == 0) {
            exit_code = _wtoi(argv[i] + 16);
        } else if (wcsncmp(argv[i], L"--stand-in-fail=", 16) == 0) {
            fail = _wtoi(argv[i] + 16);
        } else if (wcscmp(argv[i], L"--stand-in-never-ready") == 0) {
            never_ready = 1;
        } else if (wcscmp(argv[i], L"--stand-in-ignore-stop") == 0) {
            ignore_stop = 1;
        } else if (wcsncmp(argv[i], L"--stand-in-say=", 15) == 0) {
            /* one line each to its standard output and error, as the agent logs there (to NUL, or a runner's file) */
            const wchar_t *text = argv[i] + 15;
            HANDLE targets[] = {GetStdHandle(STD_OUTPUT_HANDLE), GetStdHandle(STD_ERROR_HANDLE)};
            const wchar_t *streams[] = {L" stdout\r\n", L" stderr\r\n"};
            for (int t = 0; t < 2; t++) {
                if (targets[t] != NULL && targets[t] != INVALID_HANDLE_VALUE) {
                    write_utf8(targets[t], text, wcslen(text), 0);
                    write_utf8(targets[t], streams[t], wcslen(streams[t]), 0);
                }
            }
        }
    }
    HANDLE stop = event_from(L"WINPROXY_STOP_EVENT");
    HANDLE ready = event_from(L"WINPROXY_READY_EVENT");
    record(started);
    if (stop == NULL) {
        record(L"no WINPROXY_STOP_EVENT");
        record_exit(9);
    }
    Sleep(1000); /* a start that takes a moment, as the agent's first sync does */
    if (!never_ready && ready != NULL) {
        record(L"ready"); /* before the event: the service is RUNNING once it is set, and tests then read the record */
        SetEvent(ready);
    }
    if (fail >= 0) {
        Sleep(1000);
        record_exit(fail);
    }
    WaitForSingleObject(stop, INFINITE);
    record(L"stop signalled");
    if (ignore_stop) {
        Sleep(INFINITE);
    }
    record_exit(exit_code);
}

int main(void) {
    out = GetStdHandle(STD_OUTPUT_HANDLE);
    int argc = 0;
    wchar_t **argv = CommandLineToArgvW(GetCommandLineW(), &argc);
    if (argv == NULL) {
        return STANDIN_FAILURE;
    }
    /* java.exe [options] -jar <jar> <arguments> */
    int first = 1;
    while (first < argc && wcscmp(argv[first], L"-jar") != 0) {
        first++;
    }
    first += 2;
    if (first > argc) {
        return STANDIN_FAILURE;
    }
    for (int i = first; i < argc; i++) {
        if (wcsncmp(argv[i], L"--stand-in-", 11) == 0) {
            run_as_service_agent(argc, argv, first);
        }
    }
    if (environment_number(L"STANDIN_CTRL_C", 0)) {
        SetConsoleCtrlHandler(on_ctrl_c, TRUE);
    }
    /* STANDIN_JVM_OPTIONS=1: the JVM options (before -jar) instead of the agent's arguments */
    int from = first;
    int to = argc;
    if (environment_number(L"STANDIN_JVM_OPTIONS", 0)) {
        from = 1;
        to = first - 2;
    }
    number_field((long long) GetCurrentProcessId());
    number_field(to - from);
    for (int i = from; i < to; i++) {
        field(argv[i]);
    }
    FlushFileBuffers(out);
    if (environment_number(L"STANDIN_WAIT", 0) || environment_number(L"STANDIN_CTRL_C", 0)) {
        Sleep(INFINITE);
    }
    return environment_number(L"STANDIN_EXIT", 0);
}
