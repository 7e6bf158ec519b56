/*
 * Windows command-line splitting and quoting (see cmdline.h for the contracts). Pure C: compiled into kube-proxy.exe
 * with mingw-w64 and, for the tests, into a shared library with the host gcc.
 */
#include "cmdline.h"

#include <stdlib.h>

enum {
    TAB = 0x09,
    NEWLINE = 0x0A,
    VERTICAL_TAB = 0x0B,
    SPACE = 0x20,
    QUOTE = 0x22,
    ASTERISK = 0x2A,
    QUESTION_MARK = 0x3F,
    BACKSLASH = 0x5C
};

/* Bounded output: counts every unit, stores the ones that fit. */
typedef struct {
    cmdline_char *out;
    size_t capacity;
    size_t length;
} writer;

static void put(writer *w, cmdline_char c) {
    if (w->length < w->capacity) {
        w->out[w->length] = c;
    }
    w->length++;
}

static void put_repeated(writer *w, cmdline_char c, size_t times) {
    for (size_t i = 0; i < times; i++) {
        put(w, c);
    }
}

/* NUL-terminates when the output fits, and returns the snprintf-style result. */
static size_t finish(writer *w) {
    if (w->length < w->capacity) {
        w->out[w->length] = 0;
    }
    return w->length;
}

static int is_blank(cmdline_char c) {
    return c == SPACE || c == TAB;
}

static size_t skip_blanks(const cmdline_char *s, size_t length, size_t pos) {
    while (pos < length && is_blank(s[pos])) {
        pos++;
    }
    return pos;
}

size_t cmdline_args_offset(const cmdline_char *line, size_t length) {
    size_t pos = 0;
    if (length > 0 && line[0] == QUOTE) {
        pos = 1;
        while (pos < length && line[pos] != QUOTE) {
            pos++;
        }
        if (pos < length) {
            pos++; /* the closing quote; an argument may start right after it */
        }
    } else {
        while (pos < length && !is_blank(line[pos])) {
            pos++;
        }
    }
    return skip_blanks(line, length, pos);
}

/*
 * Decodes the argument starting at `pos` (not at a blank) into `w`; returns the position after it (at a blank or
 * the end).
 */
static size_t next_argument(const cmdline_char *s, size_t length, size_t pos, writer *w) {
    int quoted = 0;
    while (pos < length) {
        cmdline_char c = s[pos];
        if (c == BACKSLASH) {
            size_t start = pos;
            while (pos < length && s[pos] == BACKSLASH) {
                pos++;
            }
            size_t backslashes = pos - start;
            if (pos < length && s[pos] == QUOTE) {
                put_repeated(w, BACKSLASH, backslashes / 2);
                if (backslashes % 2 == 1) {
                    put(w, QUOTE);
                    pos++;
                }
                /* with an even count the quote is left for the next round, where it toggles */
            } else {
                put_repeated(w, BACKSLASH, backslashes);
            }
        } else if (c == QUOTE) {
            if (quoted && pos + 1 < length && s[pos + 1] == QUOTE) {
                /* "" inside quotes: a literal quote, and the quoting ends (CommandLineToArgvW, Go) */
                put(w, QUOTE);
                pos += 2;
                quoted = 0;
            } else {
                quoted = !quoted;
                pos++;
            }
        } else if (is_blank(c) && !quoted) {
            break;
        } else {
            put(w, c);
            pos++;
        }
    }
    return pos;
}

size_t cmdline_split(const cmdline_char *args, size_t length, cmdline_char *out, size_t capacity,
        size_t *count) {
    writer w = {out, capacity, 0};
    size_t arguments = 0;
    size_t pos = skip_blanks(args, length, 0);
    while (pos < length) {
        pos = next_argument(args, length, pos, &w);
        put(&w, 0);
        arguments++;
        pos = skip_blanks(args, length, pos);
    }
    if (count != NULL) {
        *count = arguments;
    }
    /* the output is a sequence of NUL-terminated strings; no extra terminator */
    return w.length;
}

static int needs_quotes(const cmdline_char *arg, size_t length) {
    if (length == 0) {
        return 1;
    }
    for (size_t i = 0; i < length; i++) {
        cmdline_char c = arg[i];
        if (c == SPACE || c == TAB || c == NEWLINE || c == VERTICAL_TAB || c == QUOTE || c == ASTERISK
                || c == QUESTION_MARK) {
            return 1;
        }
    }
    return 0;
}

static void put_quoted(writer *w, const cmdline_char *arg, size_t length) {
    if (!needs_quotes(arg, length)) {
        for (size_t i = 0; i < length; i++) {
            put(w, arg[i]);
        }
        return;
    }
    put(w, QUOTE);
    size_t i = 0;
    while (i < length) {
        size_t backslashes = 0;
        while (i < length && arg[i] == BACKSLASH) {
            backslashes++;
            i++;
        }
        if (i == length) {
            /* before the closing quote: every backslash doubled, so the quote still closes */
            put_repeated(w, BACKSLASH, backslashes * 2);
        } else if (arg[i] == QUOTE) {
            put_repeated(w, BACKSLASH, backslashes * 2 + 1);
            put(w, QUOTE);
            i++;
        } else {
            put_repeated(w, BACKSLASH, backslashes);
            put(w, arg[i]);
            i++;
        }
    }
    put(w, QUOTE);
}

size_t cmdline_quote(const cmdline_char *arg, size_t length, cmdline_char *out, size_t capacity) {
    writer w = {out, capacity, 0};
    put_quoted(&w, arg, length);
    return finish(&w);
}

size_t cmdline_forward(const cmdline_char *line, size_t length, cmdline_char *out, size_t capacity) {
    writer w = {out, capacity, 0};
    size_t pos = cmdline_args_offset(line, length);
    /* A decoded argument is never longer than its source text. */
    cmdline_char *scratch = malloc((length - pos + 1) * sizeof(cmdline_char));
    if (scratch == NULL) {
        return CMDLINE_NO_MEMORY;
    }
    int first = 1;
    while (pos < length) {
        writer decoded = {scratch, length - pos + 1, 0};
        pos = next_argument(line, length, pos, &decoded);
        if (!first) {
            put(&w, SPACE);
        }
        put_quoted(&w, scratch, decoded.length);
        first = 0;
        pos = skip_blanks(line, length, pos);
    }
    free(scratch);
    return finish(&w);
}

static int equals_ascii(const cmdline_char *s, size_t length, const char *ascii) {
    size_t i = 0;
    for (; i < length && ascii[i] != '\0'; i++) {
        if (s[i] != (cmdline_char) (unsigned char) ascii[i]) {
            return 0;
        }
    }
    return i == length && ascii[i] == '\0';
}

/* Go's strconv.ParseBool. */
static int parse_bool(const cmdline_char *value, size_t length) {
    static const char *const truths[] = {"1", "t", "T", "TRUE", "true", "True"};
    static const char *const falsehoods[] = {"0", "f", "F", "FALSE", "false", "False"};
    for (size_t i = 0; i < sizeof(truths) / sizeof(truths[0]); i++) {
        if (equals_ascii(value, length, truths[i])) {
            return CMDLINE_FLAG_TRUE;
        }
        if (equals_ascii(value, length, falsehoods[i])) {
            return CMDLINE_FLAG_FALSE;
        }
    }
    return CMDLINE_FLAG_INVALID;
}

static int starts_with(const cmdline_char *s, size_t length, const cmdline_char *prefix, size_t prefix_length) {
    if (length < prefix_length) {
        return 0;
    }
    for (size_t i = 0; i < prefix_length; i++) {
        if (s[i] != prefix[i]) {
            return 0;
        }
    }
    return 1;
}

int cmdline_bool_flag(const cmdline_char *line, size_t length, const cmdline_char *name, size_t name_length) {
    size_t pos = cmdline_args_offset(line, length);
    /* Two decoded arguments at a time (the flag and its possible value); neither is longer than the source. */
    size_t room = length - pos + 1;
    cmdline_char *scratch = malloc(2 * room * sizeof(cmdline_char));
    if (scratch == NULL) {
        return CMDLINE_FLAG_NO_MEMORY;
    }
    int result = CMDLINE_FLAG_ABSENT;
    while (pos < length) {
        writer arg = {scratch, room, 0};
        pos = skip_blanks(line, length, next_argument(line, length, pos, &arg));
        if (equals_ascii(scratch, arg.length, "--")) {
            break;
        }
        if (!starts_with(scratch, arg.length, name, name_length)) {
            continue;
        }
        if (arg.length == name_length) {
            result = CMDLINE_FLAG_TRUE;
            if (pos < length) {
                writer value = {scratch + room, room, 0};
                size_t after = skip_blanks(line, length, next_argument(line, length, pos, &value));
                if (value.length == 0 || scratch[room] != '-') {
                    result = parse_bool(scratch + room, value.length);
                    pos = after;
                }
            }
        } else if (scratch[name_length] == '=') {
            result = parse_bool(scratch + name_length + 1, arg.length - name_length - 1);
        }
    }
    free(scratch);
    return result;
}
