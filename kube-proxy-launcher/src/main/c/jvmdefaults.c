/*
 * The JVM defaults of kube-proxy.exe: java's own argument files (`java @file`), written once for every launcher.
 * jvm.options ships in the distribution (heap cap, collector, native caps; docs/performance.md); jvm-cds.options is
 * written by the agent itself once it has built a class-data-sharing archive for this jar (docs/operations.md). A
 * file that is absent is left out, so an older distribution without them starts as before.
 */
#include "jvmdefaults.h"

#include <stdlib.h>
#include <wchar.h>

#include "cmdline.h"

static const wchar_t *const ARGUMENT_FILES[] = {L"jvm.options", L"jvm-cds.options"};

void jvm_defaults_append(wstring *line, const wchar_t *jar) {
    const wchar_t *slash = wcsrchr(jar, L'\\');
    size_t directory = slash == NULL ? 0 : (size_t) (slash - jar) + 1;
    for (size_t i = 0; i < sizeof(ARGUMENT_FILES) / sizeof(ARGUMENT_FILES[0]); i++) {
        wstring file = {0};
        append_n(&file, jar, directory);
        append(&file, ARGUMENT_FILES[i]);
        if (is_file(file.text)) {
            wstring argument = {0};
            append(&argument, L"@");
            append(&argument, file.text);
            size_t needed = cmdline_quote((const cmdline_char *) argument.text, argument.length, NULL, 0);
            append(line, L" ");
            reserve(line, needed);
            cmdline_quote((const cmdline_char *) argument.text, argument.length,
                    (cmdline_char *) (line->text + line->length), needed + 1);
            line->length += needed;
            free(argument.text);
        }
        free(file.text);
    }
}
