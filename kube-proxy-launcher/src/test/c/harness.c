/*
 * The Windows side of the launcher's tests on a Windows API (KubeProxyExeWineIT): a console program that the test
 * runs under Wine on Linux (or directly on Windows) to do what Java cannot do from outside: start kube-proxy.exe with a
 * raw command line (CreateProcessW), send console control events, kill it, and run the launcher's own argument code
 * against the system's CommandLineToArgvW many thousand times in one process.
 *
 *   harness forward IN OUT   for each command line in IN: CommandLineToArgvW of it, and CommandLineToArgvW of
 *                            "java.exe " + cmdline_forward(it) (what kube-proxy.exe hands the JVM); both to OUT
 *   harness run EXE IN OUT   starts EXE once per command line in IN (CreateProcessW, the line verbatim), waits (at
 *                            most 60 s each) and writes its exit code and standard output to OUT
 *   harness kill EXE         starts EXE (the stand-in agent waits), terminates EXE, reports whether the agent ended
 *   harness ctrl-c EXE       starts EXE on this console, sends Ctrl+C to the console, reports EXE's exit code
 *   harness hold             waits until its standard input ends (keeps a Wine session alive)
 *   harness runner LOG CMD.. a log runner (WMCO's kube-log-runner.exe): runs CMD with its standard output and error
 *                            appended to LOG, and returns its exit code
 *
 * Files: records are UTF-8 strings each followed by a NUL. OUT of forward: per line, the argument count of each split
 * (program name left out) followed by the arguments. OUT of run: per line, the exit code, the number of bytes of
 * standard output, then those bytes. kill and ctrl-c print one line and exit 0 when the behaviour held, 1 otherwise.
 * Test code: its own failures exit with 99 and a line on stderr.
 */
#include <windows.h>
#include <shellapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "cmdline.h"

#define HARNESS_FAILURE 99

static void die(const char *what) {
    fprintf(stderr, "harness: %s (error %lu)\n", what, (unsigned long) GetLastError());
    fflush(stderr);
    ExitProcess(HARNESS_FAILURE);
}

typedef struct {
    char *bytes;
    size_t length;
    size_t capacity;
} buffer;

static void put(buffer *b, const void *data, size_t length) {
    if (b->length + length > b->capacity) {
        size_t capacity = b->capacity == 0 ? 65536 : b->capacity;
        while (capacity < b->length + length) {
            capacity *= 2;
        }
        b->bytes = realloc(b->bytes, capacity);
        if (b->bytes == NULL) {
            die("out of memory");
        }
        b->capacity = capacity;
    }
    memcpy(b->bytes + b->length, data, length);
    b->length += length;
}

static void put_utf8(buffer *b, const wchar_t *text) {
    int size = WideCharToMultiByte(CP_UTF8, 0, text, (int) wcslen(text) + 1, NULL, 0, NULL, NULL);
    char *bytes = malloc((size_t) size);
    if (bytes == NULL) {
        die("out of memory");
    }
    WideCharToMultiByte(CP_UTF8, 0, text, (int) wcslen(text) + 1, bytes, size, NULL, NULL);
    put(b, bytes, (size_t) size); /* the NUL included */
    free(bytes);
}

static void put_number(buffer *b, long long value) {
    char number[32];
    int length = snprintf(number, sizeof(number), "%lld", value);
    put(b, number, (size_t) length + 1);
}

static buffer read_all(HANDLE source);

static buffer read_file(const wchar_t *path) {
    HANDLE file = CreateFileW(path, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL);
    if (file == INVALID_HANDLE_VALUE) {
        die("cannot open the input file");
    }
    return read_all(file);
}

static void write_file(const wchar_t *path, const buffer *b) {
    HANDLE file = CreateFileW(path, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
    DWORD written;
    if (file == INVALID_HANDLE_VALUE || !WriteFile(file, b->bytes, (DWORD) b->length, &written, NULL)
            || written != b->length) {
        die("cannot write the output file");
    }
    CloseHandle(file);
}

/* The next NUL-terminated UTF-8 record of in at *offset, as a new UTF-16 string; NULL at the end. */
static wchar_t *next_record(const buffer *in, size_t *offset) {
    if (*offset >= in->length) {
        return NULL;
    }
    const char *start = in->bytes + *offset;
    size_t length = strnlen(start, in->length - *offset);
    *offset += length + 1;
    int size = MultiByteToWideChar(CP_UTF8, 0, start, (int) length, NULL, 0);
    wchar_t *text = calloc((size_t) size + 1, sizeof(wchar_t));
    if (text == NULL) {
        die("out of memory");
    }
    MultiByteToWideChar(CP_UTF8, 0, start, (int) length, text, size);
    return text;
}

/* CommandLineToArgvW of line without the program name. */
static void put_split(buffer *out, const wchar_t *line) {
    int argc = 0;
    wchar_t **argv = CommandLineToArgvW(line, &argc);
    if (argv == NULL) {
        die("CommandLineToArgvW failed");
    }
    put_number(out, argc - 1);
    for (int i = 1; i < argc; i++) {
        put_utf8(out, argv[i]);
    }
    LocalFree(argv);
}

static int forward(const wchar_t *in_path, const wchar_t *out_path) {
    buffer in = read_file(in_path);
    buffer out = {0};
    size_t offset = 0;
    wchar_t *line;
    while ((line = next_record(&in, &offset)) != NULL) {
        size_t length = wcslen(line);
        size_t needed = cmdline_forward((const cmdline_char *) line, length, NULL, 0);
        if (needed == CMDLINE_NO_MEMORY) {
            die("cmdline_forward: out of memory");
        }
        wchar_t *child = calloc(needed + 16, sizeof(wchar_t));
        if (child == NULL) {
            die("out of memory");
        }
        wcscpy(child, L"java.exe ");
        cmdline_forward((const cmdline_char *) line, length, (cmdline_char *) (child + 9), needed + 1);
        put_split(&out, line);
        put_split(&out, child);
        free(child);
        free(line);
    }
    write_file(out_path, &out);
    return 0;
}

/* Starts exe with the command line verbatim, its stdout a pipe returned in *output (stderr stays this process's). */
static PROCESS_INFORMATION start(const wchar_t *exe, const wchar_t *line, DWORD flags, HANDLE *output) {
    SECURITY_ATTRIBUTES inherit = {sizeof(inherit), NULL, TRUE};
    HANDLE read_end;
    HANDLE write_end;
    if (!CreatePipe(&read_end, &write_end, &inherit, 0)) {
        die("CreatePipe failed");
    }
    SetHandleInformation(read_end, HANDLE_FLAG_INHERIT, 0);
    STARTUPINFOW startup;
    ZeroMemory(&startup, sizeof(startup));
    startup.cb = sizeof(startup);
    startup.dwFlags = STARTF_USESTDHANDLES;
    startup.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
    startup.hStdOutput = write_end;
    startup.hStdError = GetStdHandle(STD_ERROR_HANDLE);
    PROCESS_INFORMATION process;
    wchar_t *mutable_line = _wcsdup(line);
    if (!CreateProcessW(exe, mutable_line, NULL, NULL, TRUE, flags, NULL, NULL, &startup, &process)) {
        die("CreateProcessW failed");
    }
    free(mutable_line);
    CloseHandle(write_end);
    CloseHandle(process.hThread);
    *output = read_end;
    return process;
}

/* Reads a file to its end, or a pipe until every writer closed it, then closes the handle. */
static buffer read_all(HANDLE source) {
    buffer b = {0};
    char chunk[65536];
    DWORD got;
    while (ReadFile(source, chunk, sizeof(chunk), &got, NULL) && got > 0) {
        put(&b, chunk, got);
    }
    CloseHandle(source);
    return b;
}

/* Reads up to and including the first NUL (the stand-in's process id) and returns it; 0 when the pipe ended. */
static DWORD read_pid(HANDLE pipe) {
    char number[32];
    size_t length = 0;
    DWORD got;
    char c;
    while (length < sizeof(number) - 1 && ReadFile(pipe, &c, 1, &got, NULL) && got == 1 && c != '\0') {
        number[length++] = c;
    }
    number[length] = '\0';
    return (DWORD) strtoul(number, NULL, 10);
}

static int run(const wchar_t *exe, const wchar_t *in_path, const wchar_t *out_path) {
    buffer in = read_file(in_path);
    buffer out = {0};
    size_t offset = 0;
    wchar_t *line;
    while ((line = next_record(&in, &offset)) != NULL) {
        HANDLE output;
        PROCESS_INFORMATION process = start(exe, line, 0, &output);
        buffer captured = read_all(output);
        DWORD code = HARNESS_FAILURE;
        if (WaitForSingleObject(process.hProcess, 60000) != WAIT_OBJECT_0) {
            TerminateProcess(process.hProcess, HARNESS_FAILURE);
            die("kube-proxy.exe did not end within 60 s");
        }
        GetExitCodeProcess(process.hProcess, &code);
        CloseHandle(process.hProcess);
        put_number(&out, (long long) code);
        put_number(&out, (long long) captured.length);
        put(&out, captured.bytes == NULL ? "" : captured.bytes, captured.length);
        free(captured.bytes);
        free(line);
    }
    write_file(out_path, &out);
    return 0;
}

static wchar_t *quoted_line(const wchar_t *exe, const wchar_t *args) {
    size_t size = wcslen(exe) + wcslen(args) + 8;
    wchar_t *line = calloc(size, sizeof(wchar_t));
    if (line == NULL) {
        die("out of memory");
    }
    _snwprintf(line, size, L"\"%ls\" %ls", exe, args);
    return line;
}

static int kill_launcher(const wchar_t *exe) {
    SetEnvironmentVariableW(L"STANDIN_WAIT", L"1");
    HANDLE output;
    PROCESS_INFORMATION launcher = start(exe, quoted_line(exe, L"--v=2"), 0, &output);
    DWORD pid = read_pid(output);
    HANDLE agent = pid == 0 ? NULL : OpenProcess(SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid);
    if (agent == NULL) {
        die("the stand-in agent did not start");
    }
    if (WaitForSingleObject(agent, 1000) != WAIT_TIMEOUT) {
        printf("the agent ended before the launcher was killed\n");
        return 1;
    }
    TerminateProcess(launcher.hProcess, 137);
    WaitForSingleObject(launcher.hProcess, 10000);
    if (WaitForSingleObject(agent, 10000) != WAIT_OBJECT_0) {
        printf("the agent (pid %lu) still runs 10 s after its launcher was killed\n", (unsigned long) pid);
        TerminateProcess(agent, HARNESS_FAILURE);
        return 1;
    }
    printf("the agent ended with its launcher\n");
    return 0;
}

static BOOL WINAPI ignore_control(DWORD event) {
    (void) event;
    return TRUE; /* this process is not the one under test; handled, so not inherited as "ignore" */
}

static int ctrl_c(const wchar_t *exe) {
    /* Under Wine a program started without a terminal has no console: make one for it and its children. */
    FreeConsole();
    if (!AllocConsole()) {
        die("AllocConsole failed");
    }
    SetConsoleCtrlHandler(ignore_control, TRUE);
    SetEnvironmentVariableW(L"STANDIN_CTRL_C", L"1");
    HANDLE output;
    PROCESS_INFORMATION launcher = start(exe, quoted_line(exe, L"--v=2"), 0, &output);
    if (read_pid(output) == 0) {
        die("the stand-in agent did not start");
    }
    if (!GenerateConsoleCtrlEvent(CTRL_C_EVENT, 0)) {
        die("GenerateConsoleCtrlEvent failed");
    }
    buffer rest = read_all(output);
    if (WaitForSingleObject(launcher.hProcess, 20000) != WAIT_OBJECT_0) {
        TerminateProcess(launcher.hProcess, HARNESS_FAILURE);
        printf("kube-proxy.exe did not end within 20 s of the Ctrl+C\n");
        return 1;
    }
    DWORD code = 0;
    GetExitCodeProcess(launcher.hProcess, &code);
    int agent_saw_it = 0;
    for (size_t i = 0; i + 6 <= rest.length && !agent_saw_it; i++) {
        agent_saw_it = memcmp(rest.bytes + i, "ctrl-c", 6) == 0;
    }
    printf("agent %s the Ctrl+C; kube-proxy.exe exit code %lu\n", agent_saw_it ? "got" : "did not get",
            (unsigned long) code);
    return agent_saw_it && code == 130 ? 0 : 1;
}

/*
 * A log runner, as kube-log-runner.exe is in front of OpenShift WMCO's kube-proxy.exe: starts the command line after
 * "runner LOG" with its standard output and error on LOG (appended), waits for it and returns its exit code.
 */
static int runner(const wchar_t *log) {
    const wchar_t *line = GetCommandLineW();
    /* skip three arguments (program, "runner", LOG) of the raw line; they hold no quotes that need escapes */
    for (int skipped = 0; skipped < 3; skipped++) {
        while (*line == L' ' || *line == L'\t') {
            line++;
        }
        int quoted = 0;
        while (*line != L'\0' && (quoted || (*line != L' ' && *line != L'\t'))) {
            if (*line == L'"') {
                quoted = !quoted;
            }
            line++;
        }
    }
    while (*line == L' ' || *line == L'\t') {
        line++;
    }
    SECURITY_ATTRIBUTES inherit = {sizeof(SECURITY_ATTRIBUTES), NULL, TRUE};
    HANDLE file = CreateFileW(log, FILE_APPEND_DATA, FILE_SHARE_READ | FILE_SHARE_WRITE, &inherit, OPEN_ALWAYS,
            FILE_ATTRIBUTE_NORMAL, NULL);
    if (file == INVALID_HANDLE_VALUE) {
        fprintf(stderr, "harness runner: cannot open the log (%lu)\n", (unsigned long) GetLastError());
        return HARNESS_FAILURE;
    }
    wchar_t *command = _wcsdup(line);
    STARTUPINFOW startup;
    ZeroMemory(&startup, sizeof(startup));
    startup.cb = sizeof(startup);
    startup.dwFlags = STARTF_USESTDHANDLES;
    startup.hStdInput = NULL;
    startup.hStdOutput = file;
    startup.hStdError = file;
    PROCESS_INFORMATION process;
    if (command == NULL || !CreateProcessW(NULL, command, NULL, NULL, TRUE, 0, NULL, NULL, &startup, &process)) {
        fprintf(stderr, "harness runner: cannot start the command (%lu)\n", (unsigned long) GetLastError());
        return HARNESS_FAILURE;
    }
    CloseHandle(file);
    CloseHandle(process.hThread);
    WaitForSingleObject(process.hProcess, INFINITE);
    DWORD code = HARNESS_FAILURE;
    GetExitCodeProcess(process.hProcess, &code);
    return (int) code;
}

static int hold(void) {
    char chunk[256];
    DWORD got;
    while (ReadFile(GetStdHandle(STD_INPUT_HANDLE), chunk, sizeof(chunk), &got, NULL) && got > 0) {
        /* until the test closes our stdin */
    }
    return 0;
}

int main(void) {
    int argc = 0;
    wchar_t **argv = CommandLineToArgvW(GetCommandLineW(), &argc);
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argv != NULL && argc == 4 && wcscmp(argv[1], L"forward") == 0) {
        return forward(argv[2], argv[3]);
    }
    if (argv != NULL && argc == 5 && wcscmp(argv[1], L"run") == 0) {
        return run(argv[2], argv[3], argv[4]);
    }
    if (argv != NULL && argc == 3 && wcscmp(argv[1], L"kill") == 0) {
        return kill_launcher(argv[2]);
    }
    if (argv != NULL && argc == 3 && wcscmp(argv[1], L"ctrl-c") == 0) {
        return ctrl_c(argv[2]);
    }
    if (argv != NULL && argc == 2 && wcscmp(argv[1], L"hold") == 0) {
        return hold();
    }
    if (argv != NULL && argc >= 4 && wcscmp(argv[1], L"runner") == 0) {
        return runner(argv[2]);
    }
    fprintf(stderr, "usage: harness forward IN OUT | run EXE IN OUT | kill EXE | ctrl-c EXE | hold"
            " | runner LOG COMMAND...\n");
    return HARNESS_FAILURE;
}
