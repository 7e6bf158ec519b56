@echo off
rem winproxy launcher: finds a Java runtime and runs the agent with every argument passed through.
rem Java is looked up in this order (kube-proxy.exe's): WINPROXY_JAVA_HOME, a runtime next to this file (jre\, then
rem runtime\), JAVA_HOME, then java.exe on the PATH. WINPROXY_JAVA_OPTS adds JVM options after jvm.options
rem (for example -Xmx384m).
rem In a HostProcess container the service-account token and CA live under CONTAINER_SANDBOX_MOUNT_POINT, not at
rem \var\run\secrets; the launcher points the Kubernetes client at them.
setlocal
set "WINPROXY_HOME=%~dp0"
if "%WINPROXY_HOME:~-1%"=="\" set "WINPROXY_HOME=%WINPROXY_HOME:~0,-1%"

set "JAVA_EXE="
if defined WINPROXY_JAVA_HOME if exist "%WINPROXY_JAVA_HOME%\bin\java.exe" set "JAVA_EXE=%WINPROXY_JAVA_HOME%\bin\java.exe"
if not defined JAVA_EXE if exist "%WINPROXY_HOME%\jre\bin\java.exe" set "JAVA_EXE=%WINPROXY_HOME%\jre\bin\java.exe"
if not defined JAVA_EXE if exist "%WINPROXY_HOME%\runtime\bin\java.exe" set "JAVA_EXE=%WINPROXY_HOME%\runtime\bin\java.exe"
if not defined JAVA_EXE if defined JAVA_HOME if exist "%JAVA_HOME%\bin\java.exe" set "JAVA_EXE=%JAVA_HOME%\bin\java.exe"
if not defined JAVA_EXE for %%J in (java.exe) do set "JAVA_EXE=%%~$PATH:J"
if not defined JAVA_EXE (
  echo winproxy: no Java runtime found: set JAVA_HOME or WINPROXY_JAVA_HOME, put java.exe on the PATH, or unpack a Java 17+ runtime into "%WINPROXY_HOME%\runtime" 1>&2
  exit /b 1
)

if defined CONTAINER_SANDBOX_MOUNT_POINT (
  if not defined KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN if exist "%CONTAINER_SANDBOX_MOUNT_POINT%\var\run\secrets\kubernetes.io\serviceaccount\token" set "KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN=%CONTAINER_SANDBOX_MOUNT_POINT%\var\run\secrets\kubernetes.io\serviceaccount\token"
  if not defined KUBERNETES_CERTS_CA_FILE if exist "%CONTAINER_SANDBOX_MOUNT_POINT%\var\run\secrets\kubernetes.io\serviceaccount\ca.crt" set "KUBERNETES_CERTS_CA_FILE=%CONTAINER_SANDBOX_MOUNT_POINT%\var\run\secrets\kubernetes.io\serviceaccount\ca.crt"
)

rem JVM defaults (jvm.options) and the class-data-sharing archive (jvm-cds.options) first; WINPROXY_JAVA_OPTS last wins.
set "WINPROXY_JVM_DEFAULTS="
if exist "%WINPROXY_HOME%\jvm.options" set WINPROXY_JVM_DEFAULTS="@%WINPROXY_HOME%\jvm.options"
if exist "%WINPROXY_HOME%\jvm-cds.options" set WINPROXY_JVM_DEFAULTS=%WINPROXY_JVM_DEFAULTS% "@%WINPROXY_HOME%\jvm-cds.options"
rem JNA loads jnidispatch.dll from lib\ (shipped unpacked), never from a copy unpacked into %TEMP%, where AppLocker or
rem WDAC rules commonly keep DLLs from loading.
"%JAVA_EXE%" %WINPROXY_JVM_DEFAULTS% "-Djna.boot.library.path=%WINPROXY_HOME%\lib" -Djna.nounpack=true %WINPROXY_JAVA_OPTS% -jar "%WINPROXY_HOME%\winproxy-agent.jar" %*
exit /b %ERRORLEVEL%
