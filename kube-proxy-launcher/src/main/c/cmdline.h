/*
 * Windows command lines without Windows headers: splitting one into arguments the way CommandLineToArgvW (and Go's
 * os.Args, which kube-proxy.exe used) do, and quoting arguments so that a child's C runtime, CommandLineToArgvW and
 * the Java launcher's own parser all split them back to the same strings.
 *
 * Text is UTF-16 code units (wchar_t on Windows). Lengths are in code units and exclude any terminating NUL; inputs
 * need not be NUL-terminated. Every function that writes follows the snprintf contract: it returns the number of
 * units the complete output needs (excluding the final NUL), writes at most `capacity` units, and the output is
 * complete and NUL-terminated exactly when the return value is below `capacity`. `out` may be NULL when `capacity`
 * is 0, to ask for the size. No function keeps a pointer or global state, so all are thread-safe.
 */
#ifndef WINPROXY_CMDLINE_H
#define WINPROXY_CMDLINE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define CMDLINE_API
#else
#define CMDLINE_API __attribute__((visibility("default")))
#endif

typedef uint16_t cmdline_char;

/* Returned by cmdline_forward when it cannot allocate its scratch buffer. */
#define CMDLINE_NO_MEMORY SIZE_MAX

/*
 * Where the arguments start in a full command line: after the program name (argv[0]) and the blanks that follow it.
 * The program name follows its own rule: if the line starts with a double quote, the name runs to the next double
 * quote (no backslash escapes); otherwise it runs to the first space or tab.
 */
CMDLINE_API size_t cmdline_args_offset(const cmdline_char *line, size_t length);

/*
 * Splits arguments (no program name) into `out`, each argument followed by one NUL; `*count` receives the number of
 * arguments. Rules: spaces and tabs outside double quotes separate arguments; a double quote toggles quoting and is
 * dropped; inside quotes, two double quotes give one literal quote and end the quoting; 2n backslashes before a
 * double quote give n backslashes (the quote then toggles), 2n+1 give n backslashes and a literal quote; other
 * backslashes are literal.
 */
CMDLINE_API size_t cmdline_split(const cmdline_char *args, size_t length, cmdline_char *out, size_t capacity,
        size_t *count);

/*
 * Writes one argument so that cmdline_split gives it back unchanged. It is written as is when it is non-empty and has
 * no blank, double quote or wildcard; otherwise inside double quotes, with backslashes doubled where they precede a
 * quote and every quote escaped. Wildcards (* and ?) are quoted because the Windows java launcher expands unquoted
 * ones into file names.
 */
CMDLINE_API size_t cmdline_quote(const cmdline_char *arg, size_t length, cmdline_char *out, size_t capacity);

/*
 * What the launcher passes on: the arguments of a full command line (program name skipped), each quoted with
 * cmdline_quote, separated by single spaces. Empty when there are no arguments. Returns CMDLINE_NO_MEMORY if the
 * scratch buffer cannot be allocated (nothing is written then).
 */
CMDLINE_API size_t cmdline_forward(const cmdline_char *line, size_t length, cmdline_char *out, size_t capacity);

/* Results of cmdline_bool_flag. */
#define CMDLINE_FLAG_ABSENT 0
#define CMDLINE_FLAG_TRUE 1
#define CMDLINE_FLAG_FALSE 2
/* Given with a value that is not a boolean (the agent rejects it, exit code 2). */
#define CMDLINE_FLAG_INVALID 3
/* cmdline_bool_flag could not allocate its scratch buffer. */
#define CMDLINE_FLAG_NO_MEMORY (-1)

/*
 * How the agent reads the boolean flag `name` (e.g. "--windows-service"; `name_length` units, no NUL needed) among
 * the arguments of a full command line (program name skipped): `NAME` alone is true; `NAME=VALUE`, and `NAME VALUE`
 * when the next argument does not start with '-', take VALUE as Go's strconv.ParseBool does (1 t T TRUE true True,
 * 0 f F FALSE false False; anything else is CMDLINE_FLAG_INVALID); the last occurrence wins; "--" ends the flags.
 */
CMDLINE_API int cmdline_bool_flag(const cmdline_char *line, size_t length, const cmdline_char *name,
        size_t name_length);

#ifdef __cplusplus
}
#endif

#endif
