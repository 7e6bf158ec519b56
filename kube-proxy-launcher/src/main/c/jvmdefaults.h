/*
 * The JVM defaults every launch of the agent shares (issue 27): the argument files next to winproxy-agent.jar.
 */
#ifndef WINPROXY_JVMDEFAULTS_H
#define WINPROXY_JVMDEFAULTS_H

#include "launcher.h"

/*
 * Appends ` "@<dir>\jvm.options"` when that file exists (winproxy's JVM defaults), then ` "@<dir>\jvm-cds.options"`
 * when that one exists (the class-data-sharing archive the agent recorded for this jar), where <dir> is the folder
 * of `jar`. Called before %WINPROXY_JAVA_OPTS% is appended, so that the operator's options come later and win.
 */
void jvm_defaults_append(wstring *line, const wchar_t *jar);

#endif
