/*
 * What launcher.c (finding Java, building the agent's command line, starting it; the console mode) and service.c
 * (kube-proxy.exe as a Windows service) share. Windows only.
 */
#ifndef WINPROXY_LAUNCHER_H
#define WINPROXY_LAUNCHER_H

#define WIN32_LEAN_AND_MEAN
#define UNICODE
#define _UNICODE
#include <windows.h>

#include <stddef.h>
#include <wchar.h>

/* Exit code when the agent cannot be started (no Java, no agent jar, CreateProcess failed). */
#define LAUNCHER_FAILURE 1

/*
 * The environment variables through which a launcher that is the service hands the agent two inheritable event
 * handles, as decimal handle values: the agent stops gracefully when the first is signalled, and signals the second
 * once it is serving (winproxy-agent: io.winproxy.agent.winsvc.LauncherStopEvent).
 */
#define STOP_EVENT_VARIABLE L"WINPROXY_STOP_EVENT"
#define READY_EVENT_VARIABLE L"WINPROXY_READY_EVENT"

/* A growable wide string; every function leaves it NUL-terminated. Allocation failure ends the process. */
typedef struct {
    wchar_t *text;
    size_t length;
    size_t capacity;
} wstring;

void out_of_memory(void);
void reserve(wstring *s, size_t extra);
void append_n(wstring *s, const wchar_t *text, size_t length);
void append(wstring *s, const wchar_t *text);
/* Appends the system's text for a Win32 error code, e.g. "The system cannot find the file specified. (2)". */
void append_error(wstring *s, DWORD code);
/* As append_error, with the %1 in the system's text replaced by insert (a path); NULL leaves it. */
void append_error_about(wstring *s, DWORD code, const wchar_t *insert);
/* Writes "kube-proxy.exe: <message>" as one line to stderr, if there is one. */
void print_error(const wchar_t *message);
/* The value of an environment variable, or an empty string when it is not set. */
wstring environment(const wchar_t *name);
int is_file(const wchar_t *path);

/* The agent to start, and once started its process and the kill-on-close job it runs in (NULL if none). */
typedef struct {
    wstring java;
    wstring command;
    HANDLE process;
    HANDLE job;
} agent_launch;

/*
 * Finds the agent jar beside this executable and a Java runtime, points the Kubernetes client at a HostProcess
 * container's service account, and builds the command line. Returns 1, or 0 with one line in *error.
 */
int prepare_agent_launch(agent_launch *launch, wstring *error);

/*
 * Starts the agent with inheritable handles inherited (the standard handles given, which may be NULL), inside a job
 * that kills it when this process ends, and sets launch->process and launch->job. Returns 1, or 0 with one line in
 * *error.
 */
int start_agent(agent_launch *launch, DWORD creation_flags, HANDLE std_input, HANDLE std_output,
        HANDLE std_error, wstring *error);

/* Whether the parent process is the Service Control Manager (services.exe in session 0). */
int started_by_scm(void);

/*
 * Runs this process as the service (StartServiceCtrlDispatcherW) and sets *exit_code once it has stopped. Returns 0
 * at once when the process was not started by the SCM (ERROR_FAILED_SERVICE_CONTROLLER_CONNECT).
 */
int run_service(DWORD *exit_code);

#endif
