#Requires -Version 5.1
<#
.SYNOPSIS
    Registers winproxy as a Windows service with recovery actions.
.DESCRIPTION
    Creates the service (name "kube-proxy" by default; "kubeproxy" is the AKS spelling that node scripts restart)
    running the agent's JVM directly with --windows-service, so that the service reports its real state and exit
    code. Then it sets the description, the start type, the dependencies and the recovery actions: restart after
    10 s, 30 s and 60 s, reset the failure count after 900 s, and run the actions also when the service stops with
    a non-zero exit code (the failure-actions flag), which is how winproxy reports a failure.

    It also creates the agent's state directory (the ownership journal, which decides what winproxy may delete in
    HNS) owned by Administrators with a protected DACL granting only SYSTEM and Administrators, or resets an
    existing one to that; the agent refuses a state directory that others may write.

    The HNS state is not touched: winproxy adopts the load balancers it finds. When migrating from kube-proxy,
    stop and remove the old service first (use the same -ServiceName to take its place).
.PARAMETER ServiceName
    The service name: kube-proxy (default) or kubeproxy, whichever the node's scripts expect.
.PARAMETER DisplayName
    The display name.
.PARAMETER ConfigFile
    The KubeProxyConfiguration file; conf\kube-proxy-config.yaml of this distribution by default. Pass an empty
    string to run with flags only. The script writes a copy next to it, NAME-service.yaml, with
    windowsRunAsService: true, and the service runs with that copy, so that the file alone says how the program
    runs (winproxy, like kube-proxy, also honours --windows-service given together with --config, as OpenShift
    WMCO passes it). Edit the original and run the script again with -Force to change the configuration.
.PARAMETER LogFile
    Where the agent writes its log (--logtostderr=false --log-file): a service has no console, and the service
    manager discards standard error. logs\winproxy.log of this distribution by default.
.PARAMETER AgentArgument
    More agent flags, for example '--hostname-override=node1', '--v=2'.
.PARAMETER StateDirectory
    The agent's state directory, created or reset to SYSTEM + Administrators only; the --state-dir of
    -AgentArgument, else $env:ProgramData\winproxy (the agent's default).
.PARAMETER PriorityClass
    Passed as --windows-priorityclass (for example ABOVE_NORMAL_PRIORITY_CLASS, as AKS runs kube-proxy).
.PARAMETER JavaOptions
    More JVM options, after jvm.options of this distribution (the shipped defaults), so that they win, for example
    -Xmx384m for a larger cluster (docs/performance.md#jvm-defaults-and-sizing); -Xrs is always added so that
    console and logoff signals do not stop the service.
.PARAMETER JavaHome
    The Java 17+ runtime (64-bit) the service runs, a folder with bin\java.exe. Without it (and without
    -RuntimeZip) the runtime is looked up as kube-proxy.exe and winproxy.cmd do: WINPROXY_JAVA_HOME, jre\ then
    runtime\ of this distribution, JAVA_HOME, then the PATH.
.PARAMETER RuntimeZip
    A Java 17+ runtime zip for Windows x64 (for example a Temurin JRE zip). It is unpacked into runtime\ of this
    distribution (replacing what is there), where winproxy.cmd, winproxy.ps1 and kube-proxy.exe all find it, and the
    service runs it.
.PARAMETER StartType
    Automatic (default), AutomaticDelayedStart or Manual.
.PARAMETER DependsOn
    Services that must run first; hns (Host Network Service) by default. Add kubelet or containerd if needed.
.PARAMETER RestartDelaySeconds
    The delays of the restart actions for the first, second and later failures.
.PARAMETER ResetPeriodSeconds
    After how many seconds without failure the failure count is reset.
.PARAMETER ReplaceService
    Point an existing kube-proxy service (its name, e.g. kube-proxy) at this distribution's kube-proxy.exe instead of
    registering a new one: only the program in its binary path changes, so the service keeps its name, arguments,
    dependencies, account, start type, description and recovery actions. A log runner in front (OpenShift WMCO's
    kube-log-runner.exe) stays in front. The service is stopped first and started again if it was running. The old
    binary path is saved in replaced-services\NAME.properties of this distribution, for -RollbackService. Services
    that run nssm, a script or a wrapper (AKS, aks-engine, Calico, microsoft/SDN) are refused with what to do
    instead; -AgentArgument flags beside a --config file are refused (put them into the file), otherwise appended.
    -ConfigFile, -LogFile, -JavaOptions, -DependsOn and the recovery parameters do not apply.
.PARAMETER RollbackService
    Put back the binary path that -ReplaceService saved for this service (stopping and restarting it likewise);
    refused when the service was changed after the replacement.
.PARAMETER Force
    Replace a service of the same name (it is stopped and deleted first).
.PARAMETER Start
    Start the service once it is registered.
.EXAMPLE
    .\install-service.ps1 -Start
.EXAMPLE
    .\install-service.ps1 -RuntimeZip C:\Downloads\OpenJDK17U-jre_x64_windows_hotspot.zip -Start
.EXAMPLE
    .\install-service.ps1 -ReplaceService kube-proxy
.EXAMPLE
    .\install-service.ps1 -ServiceName kubeproxy -AgentArgument '--hostname-override=akswin000000' -PriorityClass ABOVE_NORMAL_PRIORITY_CLASS -Force -Start
#>
[CmdletBinding(SupportsShouldProcess = $true)]
param(
    [ValidateNotNullOrEmpty()]
    [string] $ServiceName = 'kube-proxy',
    [string] $DisplayName = 'winproxy (Kubernetes kube-proxy for Windows)',
    [string] $ConfigFile = (Join-Path -Path $PSScriptRoot -ChildPath 'conf\kube-proxy-config.yaml'),
    [string] $LogFile = (Join-Path -Path $PSScriptRoot -ChildPath 'logs\winproxy.log'),
    [string[]] $AgentArgument = @(),
    [string] $StateDirectory,
    [ValidateSet('IDLE_PRIORITY_CLASS', 'BELOW_NORMAL_PRIORITY_CLASS', 'NORMAL_PRIORITY_CLASS', 'ABOVE_NORMAL_PRIORITY_CLASS', 'HIGH_PRIORITY_CLASS', 'REALTIME_PRIORITY_CLASS')]
    [string] $PriorityClass,
    [string[]] $JavaOptions = @(),
    [string] $JavaHome,
    [string] $RuntimeZip,
    [ValidateSet('Automatic', 'AutomaticDelayedStart', 'Manual')]
    [string] $StartType = 'Automatic',
    [string[]] $DependsOn = @('hns'),
    [ValidateCount(1, 3)]
    [int[]] $RestartDelaySeconds = @(10, 30, 60),
    [ValidateRange(0, 86400)]
    [int] $ResetPeriodSeconds = 900,
    [string] $ReplaceService,
    [string] $RollbackService,
    [switch] $Force,
    [switch] $Start
)
$ErrorActionPreference = 'Stop'
Set-StrictMode -Version 3.0

function Test-WinProxyAdministrator {
    <#
    .SYNOPSIS
        Whether the current process runs elevated (service registration needs it).
    #>
    $identity = [Security.Principal.WindowsIdentity]::GetCurrent()
    $principal = [Security.Principal.WindowsPrincipal]::new($identity)
    return $principal.IsInRole([Security.Principal.WindowsBuiltInRole]::Administrator)
}

function Initialize-WinProxyStateDirectory {
    <#
    .SYNOPSIS
        Creates the state directory, or resets an existing one, owned by Administrators with a protected DACL of
        SYSTEM and Administrators full control inherited by its files (nothing inherited from the parent).
    .PARAMETER Path
        The state directory.
    #>
    param(
        [Parameter(Mandatory = $true)]
        [string] $Path
    )
    if (Test-Path -LiteralPath $Path -PathType Leaf) {
        throw "state directory $Path is a file: remove it or pass another -StateDirectory"
    }
    if (-not (Test-Path -LiteralPath $Path)) {
        New-Item -ItemType Directory -Path $Path -Force | Out-Null
    }
    $administrators = [System.Security.Principal.SecurityIdentifier]::new('S-1-5-32-544')
    $system = [System.Security.Principal.SecurityIdentifier]::new('S-1-5-18')
    $inherit = [System.Security.AccessControl.InheritanceFlags]'ContainerInherit, ObjectInherit'
    $acl = [System.Security.AccessControl.DirectorySecurity]::new()
    # Protected: the parent's ACEs (C:\ProgramData lets Users create files) are not inherited, nor kept.
    $acl.SetAccessRuleProtection($true, $false)
    $acl.SetOwner($administrators)
    foreach ($sid in @($system, $administrators)) {
        $acl.AddAccessRule([System.Security.AccessControl.FileSystemAccessRule]::new($sid, 'FullControl', $inherit, 'None', 'Allow'))
    }
    Set-Acl -LiteralPath $Path -AclObject $acl
}

function Find-WinProxyJavaExecutable {
    <#
    .SYNOPSIS
        The java.exe the service runs, looked up as winproxy.cmd does; throws a one-line error when there is none.
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
            return (Resolve-Path -LiteralPath $candidate).ProviderPath
        }
    }
    $onPath = Get-Command -Name 'java.exe' -CommandType Application -ErrorAction SilentlyContinue | Select-Object -First 1
    if ($onPath) {
        return $onPath.Source
    }
    throw "no Java runtime found: set JAVA_HOME or WINPROXY_JAVA_HOME, or unpack a Java 17+ runtime into $HomeDirectory\jre or $HomeDirectory\runtime"
}

function ConvertTo-WinProxyCommandLineArgument {
    <#
    .SYNOPSIS
        Quotes one argument for a service command line (CommandLineToArgvW rules).
    .PARAMETER Value
        The argument, unquoted.
    #>
    param(
        [AllowEmptyString()]
        [string] $Value
    )
    if ($Value -ne '' -and $Value -notmatch '[\s"]') {
        return $Value
    }
    $escaped = $Value -replace '(\\*)"', '$1$1\"'
    $escaped = $escaped -replace '(\\+)$', '$1$1'
    return '"' + $escaped + '"'
}

function New-WinProxyServiceConfiguration {
    <#
    .SYNOPSIS
        Writes the copy of a KubeProxyConfiguration file that the service runs with: windowsRunAsService: true.
    .DESCRIPTION
        An existing top-level windowsRunAsService line is replaced; otherwise the line is appended. Returns the
        path written.
    .PARAMETER Path
        The original configuration file.
    .PARAMETER Destination
        The copy to write (the original's name with a -service suffix, in the same folder).
    #>
    param(
        [Parameter(Mandatory = $true)]
        [string] $Path,
        [Parameter(Mandatory = $true)]
        [string] $Destination
    )
    $source = (Resolve-Path -LiteralPath $Path).ProviderPath
    $target = $Destination
    $lines = @(Get-Content -LiteralPath $source)
    $found = $false
    $output = foreach ($line in $lines) {
        if ($line -match '^windowsRunAsService\s*:') {
            $found = $true
            'windowsRunAsService: true'
        } else {
            $line
        }
    }
    $header = "# Generated by install-service.ps1 from $source; edit that file and run install-service.ps1 -Force again."
    $content = @($header) + @($output)
    if (-not $found) {
        $content += 'windowsRunAsService: true'
    }
    Set-Content -LiteralPath $target -Value $content -Encoding UTF8
    return $target
}

function Invoke-WinProxyServiceControl {
    <#
    .SYNOPSIS
        Runs sc.exe with the given arguments and throws a one-line error when it fails.
    .PARAMETER Arguments
        The sc.exe arguments.
    #>
    param(
        [Parameter(Mandatory = $true)]
        [string[]] $Arguments
    )
    $output = & sc.exe @Arguments 2>&1 | Out-String
    if ($LASTEXITCODE -ne 0) {
        throw "sc.exe $($Arguments -join ' ') failed with exit code ${LASTEXITCODE}: $($output.Trim())"
    }
}

if (-not (Test-WinProxyAdministrator)) {
    throw 'install-service.ps1 must run elevated (as Administrator)'
}

$winproxyHome = $PSScriptRoot
$jar = Join-Path -Path $winproxyHome -ChildPath 'winproxy-agent.jar'
if (-not (Test-Path -LiteralPath $jar -PathType Leaf)) {
    throw "winproxy-agent.jar not found in $winproxyHome; run this script from the unpacked distribution"
}
if ($ConfigFile -and -not (Test-Path -LiteralPath $ConfigFile -PathType Leaf)) {
    throw "-ConfigFile ${ConfigFile}: no such file"
}
# -RuntimeZip / -JavaHome: the Java runtime in one step (docs/runbooks.md#a-java-runtime-in-one-step).
if ($RuntimeZip) {
    if ($JavaHome) { throw '-JavaHome and -RuntimeZip: give one of them' }
    if (-not (Test-Path -LiteralPath $RuntimeZip -PathType Leaf)) { throw "-RuntimeZip ${RuntimeZip}: no such file" }
    $runtimeDirectory = Join-Path -Path $winproxyHome -ChildPath 'runtime'
    if ($PSCmdlet.ShouldProcess($runtimeDirectory, "unpack the Java runtime $RuntimeZip")) {
        # Unpacked beside runtime\ (same volume), so that the move below is a rename.
        $unpacked = Join-Path -Path $winproxyHome -ChildPath ('runtime-unpack-' + [guid]::NewGuid())
        Expand-Archive -LiteralPath $RuntimeZip -DestinationPath $unpacked
        $top = @(Get-ChildItem -LiteralPath $unpacked)
        $found = if ($top.Count -eq 1 -and $top[0].PSIsContainer) { $top[0].FullName } else { $unpacked }
        if (-not (Test-Path -LiteralPath (Join-Path -Path $found -ChildPath 'bin\java.exe') -PathType Leaf)) {
            Remove-Item -LiteralPath $unpacked -Recurse -Force
            throw "-RuntimeZip ${RuntimeZip}: no bin\java.exe in it (expected a Java runtime for Windows x64)"
        }
        if (Test-Path -LiteralPath $runtimeDirectory) { Remove-Item -LiteralPath $runtimeDirectory -Recurse -Force }
        Move-Item -LiteralPath $found -Destination $runtimeDirectory
        if (Test-Path -LiteralPath $unpacked) { Remove-Item -LiteralPath $unpacked -Recurse -Force }
        Write-Output "unpacked $RuntimeZip into $runtimeDirectory"
    }
    $JavaHome = $runtimeDirectory
}
if ($JavaHome) {
    $java = Join-Path -Path $JavaHome -ChildPath 'bin\java.exe'
    if (Test-Path -LiteralPath $java -PathType Leaf) {
        $java = (Resolve-Path -LiteralPath $java).ProviderPath
    } elseif (-not $WhatIfPreference) {
        throw "-JavaHome ${JavaHome}: no bin\java.exe there"
    }
} else {
    $java = Find-WinProxyJavaExecutable -HomeDirectory $winproxyHome
}

# JNA loads jnidispatch.dll from lib\ (shipped unpacked), never from a copy unpacked into %TEMP%.
$jnaOptions = @("-Djna.boot.library.path=$(Join-Path -Path $winproxyHome -ChildPath 'lib')", '-Djna.nounpack=true')
# --- JVM defaults and class-data sharing (issue 27): jvm.options, then the archive `winproxy cds` builds now and
# records in jvm-cds.options (docs/operations.md#class-data-sharing), before the JNA options and -JavaOptions, which
# win; kube-proxy.exe (-ReplaceService) passes the same files itself.
$jvmDefaults = @()
$jvmOptionsFile = Join-Path -Path $winproxyHome -ChildPath 'jvm.options'
if (Test-Path -LiteralPath $jvmOptionsFile -PathType Leaf) { $jvmDefaults += "@$jvmOptionsFile" }
$cdsOptionsFile = Join-Path -Path $winproxyHome -ChildPath 'jvm-cds.options'
if (-not $RollbackService -and $PSCmdlet.ShouldProcess($cdsOptionsFile, 'build the class-data-sharing archive (winproxy cds)')) {
    & $java @jvmDefaults -jar $jar cds
    if ($LASTEXITCODE -ne 0) { Write-Warning 'no class-data-sharing archive: the service starts without it' }
}
if (Test-Path -LiteralPath $cdsOptionsFile -PathType Leaf) { $jvmDefaults += "@$cdsOptionsFile" }
# --- end of JVM defaults
if ($ReplaceService -or $RollbackService) {
    # The installer's Java (lib\winproxy-installer.jar) reads and changes the service through advapi32.
    $target = if ($ReplaceService) { $ReplaceService } else { $RollbackService }
    if ($ReplaceService -and $RollbackService) { throw '-ReplaceService and -RollbackService: give one of them' }
    $record = Join-Path -Path $winproxyHome -ChildPath "replaced-services\$target.properties"
    $installer = @($java) + $jnaOptions + @('-cp', (Join-Path -Path $winproxyHome -ChildPath 'lib\*'), 'io.winproxy.installer.Main')
    if ($ReplaceService) {
        $installer += @('replace', '--name', $target, '--kube-proxy', (Join-Path -Path $winproxyHome -ChildPath 'kube-proxy.exe'), '--record', $record)
        if ($AgentArgument.Count -gt 0) {
            $installer += @('--') + $AgentArgument
        }
    } else {
        $installer += @('rollback', '--name', $target, '--record', $record)
    }
    $existing = Get-Service -Name $target -ErrorAction Stop
    if (-not $PSCmdlet.ShouldProcess($target, "point the service at $(if ($ReplaceService) { 'winproxy' } else { 'its previous binary' })")) {
        return
    }
    $wasRunning = $existing.Status -ne 'Stopped'
    if ($wasRunning) {
        Stop-Service -Name $target -Force
        $existing.WaitForStatus('Stopped', [TimeSpan]::FromSeconds(60))
    }
    & $installer[0] @($installer | Select-Object -Skip 1)
    $code = $LASTEXITCODE
    if ($wasRunning) {
        # Started again in any case: after a refusal the service is as it was.
        Start-Service -Name $target
    }
    if ($code -ne 0) {
        throw "-$(if ($ReplaceService) { 'ReplaceService' } else { 'RollbackService' }) $target failed (exit code $code; the reason is above)"
    }
    return
}

$commandLine = @($java, '-Xrs') + $jvmDefaults + $jnaOptions + $JavaOptions + @('-jar', $jar)
if ($ConfigFile) {
    # The copy says windowsRunAsService: true, so the file alone tells how the program runs.
    $source = (Resolve-Path -LiteralPath $ConfigFile).ProviderPath
    $serviceConfigName = [System.IO.Path]::GetFileNameWithoutExtension($source) + '-service' + [System.IO.Path]::GetExtension($source)
    $serviceConfig = Join-Path -Path (Split-Path -Path $source -Parent) -ChildPath $serviceConfigName
    $commandLine += "--config=$serviceConfig"
} else {
    $commandLine += '--windows-service'
}
if ($LogFile) {
    $LogFile = [System.IO.Path]::GetFullPath($LogFile)
    $commandLine += @('--logtostderr=false', "--log-file=$LogFile")
}
if ($PriorityClass) {
    $commandLine += "--windows-priorityclass=$PriorityClass"
}
$commandLine += $AgentArgument
# A service has no console and the SCM discards standard error: without a log file it logs nothing (as upstream
# kube-proxy registered the same way). Registered anyway, but said now rather than found out later.
if (-not (@($commandLine) | Where-Object { $_ -match '^--?log-(file|dir)(=|$)' })) {
    Write-Warning "the service will log nothing: no -LogFile and no --log-file or --log-dir in -AgentArgument (a service's standard error goes nowhere)"
}
$binaryPath = ($commandLine | ForEach-Object { ConvertTo-WinProxyCommandLineArgument -Value $_ }) -join ' '

$existing = Get-Service -Name $ServiceName -ErrorAction SilentlyContinue
if ($existing) {
    if (-not $Force) {
        throw "a service named $ServiceName already exists; stop and remove it first, or pass -Force to replace it"
    }
    if ($PSCmdlet.ShouldProcess($ServiceName, 'stop and delete the existing service')) {
        if ($existing.Status -ne 'Stopped') {
            Stop-Service -Name $ServiceName -Force
            $existing.WaitForStatus('Stopped', [TimeSpan]::FromSeconds(60))
        }
        Invoke-WinProxyServiceControl -Arguments @('delete', $ServiceName)
        $deadline = (Get-Date).AddSeconds(30)
        while ((Get-Service -Name $ServiceName -ErrorAction SilentlyContinue) -and (Get-Date) -lt $deadline) {
            Start-Sleep -Milliseconds 500
        }
        # sc.exe delete only marks the service; it is removed once every handle to it is closed.
        if (Get-Service -Name $ServiceName -ErrorAction SilentlyContinue) {
            throw "service $ServiceName is marked for deletion but still exists after 30 s: close the Services console (services.msc), Event Viewer and any other program that has it open, then run this script again"
        }
    }
}

if (-not $PSCmdlet.ShouldProcess($ServiceName, "register service running $binaryPath")) {
    return
}

if (-not $StateDirectory) {
    $StateDirectory = Join-Path -Path $env:ProgramData -ChildPath 'winproxy'
    if (($AgentArgument -join ' ') -match '--state-dir(?:=|\s+)(?:"([^"]+)"|(\S+))') {
        $StateDirectory = if ($Matches[1]) { $Matches[1] } else { $Matches[2] }
    }
}
Initialize-WinProxyStateDirectory -Path $StateDirectory
Write-Output "state directory ${StateDirectory}: owner Administrators, only SYSTEM and Administrators may access it"

if ($ConfigFile) {
    New-WinProxyServiceConfiguration -Path $ConfigFile -Destination $serviceConfig | Out-Null
    Write-Output "wrote $serviceConfig (windowsRunAsService: true) from $ConfigFile"
}
if ($LogFile) {
    $logDirectory = Split-Path -Path $LogFile -Parent
    if ($logDirectory -and -not (Test-Path -LiteralPath $logDirectory)) {
        New-Item -ItemType Directory -Path $logDirectory -Force | Out-Null
    }
}

$startupType = 'Automatic'
if ($StartType -eq 'Manual') {
    $startupType = 'Manual'
}
$parameters = @{
    Name           = $ServiceName
    BinaryPathName = $binaryPath
    DisplayName    = $DisplayName
    Description    = 'winproxy: programs HNS load balancers for Kubernetes Services on this node (drop-in replacement for kube-proxy kernelspace mode).'
    StartupType    = $startupType
}
if ($DependsOn.Count -gt 0) {
    $parameters['DependsOn'] = $DependsOn
}
New-Service @parameters | Out-Null
if ($StartType -eq 'AutomaticDelayedStart') {
    Invoke-WinProxyServiceControl -Arguments @('config', $ServiceName, 'start=', 'delayed-auto')
}

# Recovery actions: restart after each delay; the last one repeats for every later failure.
$actions = ($RestartDelaySeconds | ForEach-Object { "restart/$($_ * 1000)" }) -join '/'
Invoke-WinProxyServiceControl -Arguments @('failure', $ServiceName, 'reset=', "$ResetPeriodSeconds", 'actions=', $actions)
# Run the actions also when the service stops itself with a non-zero exit code, not only when it crashes.
Invoke-WinProxyServiceControl -Arguments @('failureflag', $ServiceName, '1')

# The event source under which the agent reports a start-up failure (a bad flag or configuration file) to the
# Application log, since a service has no console; registering it gives the events a proper description.
if (-not [System.Diagnostics.EventLog]::SourceExists('winproxy')) {
    [System.Diagnostics.EventLog]::CreateEventSource('winproxy', 'Application')
}

Write-Output "registered service $ServiceName ($StartType): $binaryPath"
Write-Output "recovery: $actions, reset after $ResetPeriodSeconds s, also on non-zero exit codes"

if ($Start) {
    Start-Service -Name $ServiceName
    Write-Output "started service $ServiceName"
}
