/*
 * kube-proxy.exe: runs winproxy where a launcher expects kube-proxy.exe.
 *
 * Starts `java [@jvm.options] [@jvm-cds.options] -Djna.boot.library.path=<dir>\lib -Djna.nounpack=true
 * [%WINPROXY_JAVA_OPTS%] -jar <dir>\winproxy-agent.jar <arguments>` (the argument files next to the jar:
 * jvmdefaults.c) where <dir> is this executable's folder and <arguments> are this process's own arguments, taken
 * from the raw command line and re-quoted (see cmdline.h) so that the agent receives exactly the argv that
 * kube-proxy.exe would have received. Java is looked up in this order: %WINPROXY_JAVA_HOME%\bin\java.exe,
 * <dir>\jre\bin\java.exe, <dir>\runtime\bin\java.exe, %JAVA_HOME%\bin\java.exe, then java.exe in the directories of
 * %PATH%.
 *
 * Two ways to run:
 *   - As a Windows service (service.c), when --windows-service is among the arguments or, without that flag, when
 *     the Service Control Manager started this process (svc_run_as_service): this process is the service, and the
 *     agent is its child, stopped through an event (WINPROXY_STOP_EVENT).
 *   - Otherwise as a console program (this file): the child shares this console, so Ctrl+C and Ctrl+Break reach it
 *     directly; this process ignores them and waits. On console close, logoff or shutdown it waits (bounded) for the
 *     child to finish its own shutdown. The exit code is the child's, or LAUNCHER_FAILURE (with one line on stderr)
 *     when the child cannot be started.
 * Either way the child runs in a job object that kills it when this process ends, however it ends.
 *
 * Written against the documented Win32 contracts; built with mingw-w64 (see src/build/build-kube-proxy-exe.sh).
 */
#include "launcher.h"

#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "jvmdefaults.h"
#include "svcstate.h"

_Static_assert(sizeof(wchar_t) == sizeof(cmdline_char), "wchar_t is one UTF-16 code unit on Windows");

/* CreateProcessW's limit on lpCommandLine, terminating NUL included. */
#define MAX_COMMAND_LINE 32767
/*
 * How long a console close or shutdown waits for the child before this process lets the system end it. Windows
 * ends a console process about 5 s after delivering CTRL_CLOSE_EVENT (CTRL_SHUTDOWN_EVENT likewise for a console
 * process), whatever the handler does: waiting longer only hides that the wait was cut. Returning before that
 * limit ends this process (and the child with its job) on this program's terms.
 */
#define CHILD_SHUTDOWN_GRACE_MS 4500

/* mingw-w64's C runtime would otherwise expand wildcards in argv, which this program does not use. */
int _dowildcard = 0;

/* Without allocating: the one failure that cannot build a message. */
void out_of_memory(void) {
    static const char message[] = "kube-proxy.exe: out of memory\r\n";
    DWORD written;
    HANDLE err = GetStdHandle(STD_ERROR_HANDLE);
    if (err != NULL && err != INVALID_HANDLE_VALUE) {
        WriteFile(err, message, sizeof(message) - 1, &written, NULL);
    }
    ExitProcess(LAUNCHER_FAILURE);
}

void reserve(wstring *s, size_t extra) {
    if (s->length + extra + 1 <= s->capacity) {
        return;
    }
    size_t capacity = s->capacity == 0 ? 256 : s->capacity;
    while (capacity < s->length + extra + 1) {
        capacity *= 2;
    }
    wchar_t *grown = realloc(s->text, capacity * sizeof(wchar_t));
    if (grown == NULL) {
        out_of_memory();
    }
    s->text = grown;
    s->capacity = capacity;
}

void append_n(wstring *s, const wchar_t *text, size_t length) {
    reserve(s, length);
    memcpy(s->text + s->length, text, length * sizeof(wchar_t));
    s->length += length;
    s->text[s->length] = L'\0';
}

void append(wstring *s, const wchar_t *text) {
    append_n(s, text, wcslen(text));
}

/* Writes one line to stderr: UTF-16 to a console, UTF-8 to a file or pipe. */
void print_error(const wchar_t *message) {
    HANDLE err = GetStdHandle(STD_ERROR_HANDLE);
    if (err == NULL || err == INVALID_HANDLE_VALUE) {
        return;
    }
    wstring line = {0};
    append(&line, L"kube-proxy.exe: ");
    append(&line, message);
    append(&line, L"\r\n");
    DWORD mode;
    DWORD written;
    if (GetConsoleMode(err, &mode)) {
        WriteConsoleW(err, line.text, (DWORD) line.length, &written, NULL);
    } else {
        int size = WideCharToMultiByte(CP_UTF8, 0, line.text, (int) line.length, NULL, 0, NULL, NULL);
        char *utf8 = size > 0 ? malloc((size_t) size) : NULL;
        if (utf8 != NULL) {
            WideCharToMultiByte(CP_UTF8, 0, line.text, (int) line.length, utf8, size, NULL, NULL);
            WriteFile(err, utf8, (DWORD) size, &written, NULL);
            free(utf8);
        }
    }
    free(line.text);
}

static void fail(const wchar_t *message) {
    print_error(message);
    ExitProcess(LAUNCHER_FAILURE);
}

/* Appends the system's text for a Win32 error code, e.g. "The system cannot find the file specified. (2)". */
void append_error(wstring *s, DWORD code) {
    append_error_about(s, code, NULL);
}

/*
 * Appends text with each %1 insert (also written %1!s!) replaced by insert, or left as it is when insert is NULL.
 * Other inserts (%2 ... %99) stay as they are: the system texts are read with FORMAT_MESSAGE_IGNORE_INSERTS, since
 * FormatMessage itself would read as many arguments as the text names, which the caller cannot know.
 */
static void append_filled(wstring *s, const wchar_t *text, size_t length, const wchar_t *insert) {
    size_t i = 0;
    while (i < length) {
        if (insert != NULL && text[i] == L'%' && i + 1 < length && text[i + 1] == L'1'
                && (i + 2 >= length || text[i + 2] < L'0' || text[i + 2] > L'9')) {
            append(s, insert);
            i += 2;
            if (i < length && text[i] == L'!') { /* a printf-style format, e.g. %1!s!: the path is the value */
                size_t close = i + 1;
                while (close < length && text[close] != L'!') {
                    close++;
                }
                i = close < length ? close + 1 : i;
            }
            continue;
        }
        size_t start = i++;
        while (i < length && text[i] != L'%') {
            i++;
        }
        append_n(s, text + start, i - start);
    }
}

/*
 * As append_error, with the %1 of the system's text (e.g. "%1 is not a valid Win32 application.") filled with
 * insert, the file the failed call was about; NULL leaves inserts as they are.
 */
void append_error_about(wstring *s, DWORD code, const wchar_t *insert) {
    wchar_t *text = NULL;
    DWORD length = FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM
            | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, code, 0, (LPWSTR) &text, 0, NULL);
    while (length > 0 && (text[length - 1] == L'\r' || text[length - 1] == L'\n' || text[length - 1] == L' ')) {
        length--;
    }
    if (length > 0) {
        append_filled(s, text, length, insert);
        append(s, L" ");
    }
    LocalFree(text);
    wchar_t number[16];
    _snwprintf(number, 16, L"(%lu)", (unsigned long) code);
    number[15] = L'\0';
    append(s, number);
}

/* Sets *path to the folder of this executable, without a trailing backslash; or returns 0 with *error set. */
static int executable_directory(wstring *path, wstring *error) {
    path->length = 0;
    for (DWORD size = MAX_PATH;; size *= 2) {
        reserve(path, size);
        DWORD length = GetModuleFileNameW(NULL, path->text, size);
        if (length == 0) {
            append(error, L"cannot find its own path: ");
            append_error(error, GetLastError());
            return 0;
        }
        if (length < size) {
            path->length = length;
            break;
        }
        /* truncated: ERROR_INSUFFICIENT_BUFFER; try a larger buffer */
    }
    while (path->length > 0 && path->text[path->length - 1] != L'\\') {
        path->length--;
    }
    if (path->length > 0) {
        path->length--; /* the backslash */
    }
    path->text[path->length] = L'\0';
    return 1;
}

/* The value of an environment variable, or an empty string when it is not set. */
wstring environment(const wchar_t *name) {
    wstring value = {0};
    reserve(&value, 0);
    DWORD size = GetEnvironmentVariableW(name, NULL, 0);
    if (size > 0) {
        reserve(&value, size);
        DWORD length = GetEnvironmentVariableW(name, value.text, size);
        value.length = length < size ? length : 0;
    }
    value.text[value.length] = L'\0';
    return value;
}

int is_file(const wchar_t *path) {
    DWORD attributes = GetFileAttributesW(path);
    return attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_DIRECTORY) == 0;
}

/* Sets *java to home\bin\java.exe when home is non-empty and that file exists. */
static int java_in(const wstring *home, wstring *java) {
    if (home->length == 0) {
        return 0;
    }
    java->length = 0;
    append(java, home->text);
    if (java->text[java->length - 1] != L'\\') {
        append(java, L"\\");
    }
    append(java, L"bin\\java.exe");
    return is_file(java->text);
}

/* java.exe in the directories of %PATH% only (not the current or application directory). */
static int java_on_path(wstring *java) {
    wstring path = environment(L"PATH");
    int found = 0;
    if (path.length > 0) {
        for (DWORD size = MAX_PATH;;) {
            java->length = 0;
            reserve(java, size);
            DWORD length = SearchPathW(path.text, L"java.exe", NULL, size, java->text, NULL);
            if (length == 0) {
                break;
            }
            if (length < size) {
                java->length = length;
                found = 1;
                break;
            }
            size = length; /* the buffer size needed, terminating NUL included */
        }
    }
    free(path.text);
    return found;
}

/* Sets *java to the java.exe to run; or returns 0 with *error set. */
static int find_java(const wstring *directory, wstring *java, wstring *error) {
    wstring home = environment(L"WINPROXY_JAVA_HOME");
    int found = java_in(&home, java);
    free(home.text);
    const wchar_t *bundled[] = {L"\\jre", L"\\runtime"};
    for (size_t i = 0; !found && i < sizeof(bundled) / sizeof(bundled[0]); i++) {
        wstring runtime = {0};
        append(&runtime, directory->text);
        append(&runtime, bundled[i]);
        found = java_in(&runtime, java);
        free(runtime.text);
    }
    if (!found) {
        home = environment(L"JAVA_HOME");
        found = java_in(&home, java);
        free(home.text);
    }
    if (!found) {
        found = java_on_path(java);
    }
    if (!found) {
        append(error, L"no Java runtime found: looked for bin\\java.exe in %WINPROXY_JAVA_HOME%, in ");
        append(error, directory->text);
        append(error, L"\\jre, in ");
        append(error, directory->text);
        append(error, L"\\runtime and in %JAVA_HOME%, then for java.exe on the PATH;"
                L" unpack a Java 17+ runtime into ");
        append(error, directory->text);
        append(error, L"\\jre or set JAVA_HOME");
    }
    return found;
}

/*
 * In a HostProcess container the service-account token and CA are under %CONTAINER_SANDBOX_MOUNT_POINT%, not at
 * \var\run\secrets; point the Kubernetes client at them unless already set (as winproxy.cmd does).
 */
static void container_service_account(void) {
    wstring root = environment(L"CONTAINER_SANDBOX_MOUNT_POINT");
    if (root.length > 0) {
        const wchar_t *variables[] = {L"KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN", L"KUBERNETES_CERTS_CA_FILE"};
        const wchar_t *files[] = {L"token", L"ca.crt"};
        for (size_t i = 0; i < 2; i++) {
            if (GetEnvironmentVariableW(variables[i], NULL, 0) > 0) {
                continue;
            }
            wstring file = {0};
            append(&file, root.text);
            if (file.text[file.length - 1] != L'\\') {
                append(&file, L"\\");
            }
            append(&file, L"var\\run\\secrets\\kubernetes.io\\serviceaccount\\");
            append(&file, files[i]);
            if (is_file(file.text)) {
                SetEnvironmentVariableW(variables[i], file.text);
            }
            free(file.text);
        }
    }
    free(root.text);
}

/* Appends one argument quoted for the child (cmdline_quote). */
static void append_quoted(wstring *s, const wchar_t *arg) {
    size_t length = wcslen(arg);
    size_t needed = cmdline_quote((const cmdline_char *) arg, length, NULL, 0);
    reserve(s, needed);
    cmdline_quote((const cmdline_char *) arg, length, (cmdline_char *) (s->text + s->length), needed + 1);
    s->length += needed;
}

/*
 * Appends the options that make JNA load its native library (jnidispatch.dll) from <dir>\lib, where the
 * distribution ships it unpacked, and never unpack a copy into %TEMP% (which AppLocker or WDAC rules commonly keep
 * DLLs from loading in): ` "-Djna.boot.library.path=<dir>\lib" -Djna.nounpack=true`. <dir> is the jar's folder.
 */
static void append_jna_options(wstring *line, const wstring *jar) {
    size_t folder = jar->length;
    while (folder > 0 && jar->text[folder - 1] != L'\\') {
        folder--;
    }
    wstring option = {0};
    append(&option, L"-Djna.boot.library.path=");
    append_n(&option, jar->text, folder); /* the folder with its trailing backslash */
    append(&option, L"lib");
    append(line, L" ");
    append_quoted(line, option.text);
    append(line, L" -Djna.nounpack=true");
    free(option.text);
}

/*
 * Sets *line_out to `"java" ["@jvm.options"] ["@jvm-cds.options"] <JNA options> [%WINPROXY_JAVA_OPTS%] -jar
 * "<dir>\winproxy-agent.jar" <this process's arguments, re-quoted>`; or returns 0 with *error set. The argument files
 * (jvmdefaults.c) and the JNA options come first, so that WINPROXY_JAVA_OPTS can override them.
 */
static int child_command_line(const wstring *java, const wstring *jar, wstring *line_out, wstring *error) {
    wstring line = {0};
    /* the program name is never unescaped by the child, only stripped of its quotes */
    append(&line, L"\"");
    append(&line, java->text);
    append(&line, L"\"");
    jvm_defaults_append(&line, jar->text); /* jvmdefaults.c: before the operator's options, which then win */
    append_jna_options(&line, jar);
    wstring options = environment(L"WINPROXY_JAVA_OPTS");
    if (options.length > 0) {
        append(&line, L" ");
        append(&line, options.text); /* written by the operator in Windows quoting, like %WINPROXY_JAVA_OPTS% */
    }
    free(options.text);
    append(&line, L" -jar ");
    append_quoted(&line, jar->text);

    const wchar_t *own = GetCommandLineW();
    size_t length = wcslen(own);
    size_t needed = cmdline_forward((const cmdline_char *) own, length, NULL, 0);
    if (needed == CMDLINE_NO_MEMORY) {
        out_of_memory();
    }
    if (needed > 0) {
        append(&line, L" ");
        reserve(&line, needed);
        cmdline_forward((const cmdline_char *) own, length, (cmdline_char *) (line.text + line.length), needed + 1);
        line.length += needed;
    }
    if (line.length >= MAX_COMMAND_LINE) {
        free(line.text);
        append(error, L"the command line for java.exe is longer than Windows allows (32767 characters); shorten"
                L" the arguments or move them into a --config file");
        return 0;
    }
    *line_out = line;
    return 1;
}

int prepare_agent_launch(agent_launch *launch, wstring *error) {
    ZeroMemory(launch, sizeof(*launch));
    wstring directory = {0};
    if (!executable_directory(&directory, error)) {
        return 0;
    }
    wstring jar = {0};
    append(&jar, directory.text);
    append(&jar, L"\\winproxy-agent.jar");
    int ready = 0;
    if (!is_file(jar.text)) {
        append(error, jar.text);
        append(error, L" not found: kube-proxy.exe runs the agent jar next to it; unpack the whole winproxy"
                L" distribution into one folder");
    } else if (find_java(&directory, &launch->java, error)) {
        container_service_account();
        ready = child_command_line(&launch->java, &jar, &launch->command, error);
    }
    free(jar.text);
    free(directory.text);
    return ready;
}


/* A job that kills its processes when its last handle closes, i.e. when this process ends; NULL if unavailable. */
static HANDLE kill_on_close_job(void) {
    HANDLE job = CreateJobObjectW(NULL, NULL);
    if (job == NULL) {
        return NULL;
    }
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits;
    ZeroMemory(&limits, sizeof(limits));
    limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
    if (!SetInformationJobObject(job, JobObjectExtendedLimitInformation, &limits, sizeof(limits))) {
        CloseHandle(job);
        return NULL;
    }
    return job;
}

int start_agent(agent_launch *launch, DWORD creation_flags, HANDLE std_input, HANDLE std_output,
        HANDLE std_error, wstring *error) {
    STARTUPINFOW startup;
    ZeroMemory(&startup, sizeof(startup));
    startup.cb = sizeof(startup);
    startup.dwFlags = STARTF_USESTDHANDLES;
    startup.hStdInput = std_input;
    startup.hStdOutput = std_output;
    startup.hStdError = std_error;
    PROCESS_INFORMATION process;
    ZeroMemory(&process, sizeof(process));

    HANDLE job = kill_on_close_job();
    /* Suspended until it is in the job, so that not even its first instructions run unsupervised. */
    if (!CreateProcessW(launch->java.text, launch->command.text, NULL, NULL, TRUE,
            creation_flags | CREATE_SUSPENDED, NULL, NULL, &startup, &process)) {
        DWORD code = GetLastError();
        if (job != NULL) {
            CloseHandle(job);
        }
        append(error, L"cannot start ");
        append(error, launch->java.text);
        append(error, L": ");
        append_error_about(error, code, launch->java.text);
        return 0;
    }
    if (job != NULL && !AssignProcessToJobObject(job, process.hProcess)) {
        /* e.g. inside a job that forbids nested jobs: run on, the child just is not killed with this process */
        CloseHandle(job);
        job = NULL;
    }
    launch->process = process.hProcess;
    launch->job = job;
    ResumeThread(process.hThread);
    CloseHandle(process.hThread);
    return 1;
}

/* An inheritable duplicate of a standard handle, or NULL when there is none. */
static HANDLE inheritable(DWORD which) {
    HANDLE handle = GetStdHandle(which);
    HANDLE copy = NULL;
    if (handle == NULL || handle == INVALID_HANDLE_VALUE
            || !DuplicateHandle(GetCurrentProcess(), handle, GetCurrentProcess(), &copy, 0, TRUE,
                    DUPLICATE_SAME_ACCESS)) {
        return NULL;
    }
    return copy;
}

/* Read by the console control handler, which runs on its own thread; set once, when the child exists. */
static volatile HANDLE child_process = NULL;

static BOOL WINAPI on_console_control(DWORD event) {
    switch (event) {
    case CTRL_C_EVENT:
    case CTRL_BREAK_EVENT:
    case CTRL_LOGOFF_EVENT:
        /* The child got the same event on the shared console and decides; this process keeps waiting for it. */
        return TRUE;
    default:
        /* Close or shutdown: the system ends this process when the handler returns, and the job then kills the
           child; give the child its time to shut down first. */
        if (child_process != NULL) {
            WaitForSingleObject(child_process, CHILD_SHUTDOWN_GRACE_MS);
        }
        return TRUE;
    }
}

/* kube-proxy.exe as a console program (or a service wrapper's child): runs the agent and returns its exit code. */
static DWORD run_console(void) {
    /* Only a launcher that is itself the service hands the agent its stop events; never pass on stale ones. */
    SetEnvironmentVariableW(STOP_EVENT_VARIABLE, NULL);
    SetEnvironmentVariableW(READY_EVENT_VARIABLE, NULL);
    wstring error = {0};
    agent_launch launch;
    if (!prepare_agent_launch(&launch, &error)) {
        fail(error.text);
    }
    HANDLE standard[] = {inheritable(STD_INPUT_HANDLE), inheritable(STD_OUTPUT_HANDLE),
            inheritable(STD_ERROR_HANDLE)};
    /* From here on a Ctrl+C must not end this process before the child: the child decides. */
    SetConsoleCtrlHandler(on_console_control, TRUE);
    int started = start_agent(&launch, 0, standard[0], standard[1], standard[2], &error);
    for (size_t i = 0; i < 3; i++) {
        if (standard[i] != NULL) {
            CloseHandle(standard[i]);
        }
    }
    if (!started) {
        fail(error.text);
    }
    child_process = launch.process;
    WaitForSingleObject(launch.process, INFINITE);
    DWORD exit_code = LAUNCHER_FAILURE;
    if (!GetExitCodeProcess(launch.process, &exit_code)) {
        exit_code = LAUNCHER_FAILURE;
    }
    return exit_code;
}

int main(void) {
    const wchar_t *own = GetCommandLineW();
    int flag = cmdline_bool_flag((const cmdline_char *) own, wcslen(own), (const cmdline_char *) L"--windows-service",
            wcslen(L"--windows-service"));
    if (flag == CMDLINE_FLAG_NO_MEMORY) {
        out_of_memory();
    }
    DWORD exit_code;
    if (!svc_run_as_service(flag, started_by_scm()) || !run_service(&exit_code)) {
        /* Not a service, or not started by the SCM after all (--windows-service typed in a console): run as a
           console program; the agent then explains that --windows-service needs the SCM. */
        exit_code = run_console();
    }
    /* Nothing to free: the process ends here, and closing the job only kills what is left in it. */
    ExitProcess(exit_code);
}
