<#
.SYNOPSIS
    Runs the winproxy agent with every argument passed through.
.DESCRIPTION
    Finds a Java runtime in this order: WINPROXY_JAVA_HOME, a runtime next to this script (jre\, then runtime\),
    JAVA_HOME, then java.exe on the PATH. WINPROXY_JAVA_OPTS adds JVM options after jvm.options (for example
    -Xmx384m). In a HostProcess container the Kubernetes client is pointed at the service-account token and CA under
    CONTAINER_SANDBOX_MOUNT_POINT. The exit code is the agent's (0 success, 1 runtime failure, 2 invalid flags).
.EXAMPLE
    .\winproxy.ps1 hns list -o json
.EXAMPLE
    .\winproxy.ps1 --config C:\k\winproxy\conf\kube-proxy-config.yaml
#>
$ErrorActionPreference = 'Stop'

function Find-WinProxyJava {
    <#
    .SYNOPSIS
        Returns the java.exe the launcher runs, or throws a one-line error naming the places it looked.
    .PARAMETER HomeDirectory
        The folder of the unpacked winproxy distribution.
    #>
    param(
        [Parameter(Mandatory = $true)]
        [string] $HomeDirectory
    )
    $candidates = @()
    if ($env:WINPROXY_JAVA_HOME) {
        $candidates += Join-Path -Path $env:WINPROXY_JAVA_HOME -ChildPath 'bin\java.exe'
    }
    $candidates += Join-Path -Path $HomeDirectory -ChildPath 'jre\bin\java.exe'
    $candidates += Join-Path -Path $HomeDirectory -ChildPath 'runtime\bin\java.exe'
    if ($env:JAVA_HOME) {
        $candidates += Join-Path -Path $env:JAVA_HOME -ChildPath 'bin\java.exe'
    }
    foreach ($candidate in $candidates) {
        if (Test-Path -LiteralPath $candidate -PathType Leaf) {
            return $candidate
        }
    }
    $onPath = Get-Command -Name 'java.exe' -CommandType Application -ErrorAction SilentlyContinue | Select-Object -First 1
    if ($onPath) {
        return $onPath.Source
    }
    throw "winproxy: no Java runtime found: set JAVA_HOME or WINPROXY_JAVA_HOME, put java.exe on the PATH, or unpack a Java 17+ runtime into $HomeDirectory\runtime"
}

$winproxyHome = $PSScriptRoot
try {
    $java = Find-WinProxyJava -HomeDirectory $winproxyHome
} catch {
    [Console]::Error.WriteLine($_.Exception.Message)
    exit 1
}

if ($env:CONTAINER_SANDBOX_MOUNT_POINT) {
    $serviceAccount = Join-Path -Path $env:CONTAINER_SANDBOX_MOUNT_POINT -ChildPath 'var\run\secrets\kubernetes.io\serviceaccount'
    $token = Join-Path -Path $serviceAccount -ChildPath 'token'
    $ca = Join-Path -Path $serviceAccount -ChildPath 'ca.crt'
    if (-not $env:KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN -and (Test-Path -LiteralPath $token)) {
        $env:KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN = $token
    }
    if (-not $env:KUBERNETES_CERTS_CA_FILE -and (Test-Path -LiteralPath $ca)) {
        $env:KUBERNETES_CERTS_CA_FILE = $ca
    }
}

# JVM defaults (jvm.options) and the class-data-sharing archive (jvm-cds.options) first, so that WINPROXY_JAVA_OPTS
# after them wins (docs/performance.md#jvm-defaults-and-sizing).
$javaOptions = @()
foreach ($argumentFile in @('jvm.options', 'jvm-cds.options')) {
    $path = Join-Path -Path $winproxyHome -ChildPath $argumentFile
    if (Test-Path -LiteralPath $path -PathType Leaf) { $javaOptions += "@$path" }
}
if ($env:WINPROXY_JAVA_OPTS) {
    $javaOptions += @($env:WINPROXY_JAVA_OPTS -split '\s+' | Where-Object { $_ })
}
$jar = Join-Path -Path $winproxyHome -ChildPath 'winproxy-agent.jar'
# JNA loads jnidispatch.dll from lib\ (shipped unpacked), never from a copy unpacked into %TEMP%, where AppLocker or
# WDAC rules commonly keep DLLs from loading.
$jnaOptions = @("-Djna.boot.library.path=$(Join-Path -Path $winproxyHome -ChildPath 'lib')", '-Djna.nounpack=true')
& $java @jnaOptions @javaOptions -jar $jar @args
exit $LASTEXITCODE
