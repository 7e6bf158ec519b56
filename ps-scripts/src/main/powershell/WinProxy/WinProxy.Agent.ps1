# Running the winproxy launcher and reading its JSON output.
# Dot-sourced by WinProxy.psm1; not a module of its own.

function Resolve-WinProxyLauncher {
    <#
    .SYNOPSIS
        Finds the winproxy launcher the other functions run: winproxy.cmd, or a swapped-in kube-proxy.exe.
    .DESCRIPTION
        Looks, in order, at the -Path given, the WINPROXY_HOME environment variable, the distribution this module
        was installed from (two folders up from the module), the folders of the kube-proxy and kubeproxy services'
        binaries, C:\k, and the PATH. In each folder it takes winproxy.cmd, else kube-proxy.exe when
        winproxy-agent.jar is beside it: where only kube-proxy.exe, the jar and lib\ were swapped in, winproxy's
        kube-proxy.exe runs the agent with the arguments given, as winproxy.cmd does. Throws a one-line error naming
        the places it looked when none has a launcher.
    .PARAMETER Path
        The launcher, or the folder of an unpacked winproxy distribution or of a swapped-in kube-proxy.exe.
    .OUTPUTS
        System.String. The full path of the launcher.
    .EXAMPLE
        Resolve-WinProxyLauncher -Path C:\k\winproxy
    #>
    [CmdletBinding()]
    [OutputType([string])]
    param(
        [string] $Path
    )
    $folders = [System.Collections.Generic.List[string]]::new()
    if ($Path) {
        if (Test-Path -LiteralPath $Path -PathType Container) {
            $folders.Add($Path)
        } elseif (Test-Path -LiteralPath $Path -PathType Leaf) {
            return (Resolve-Path -LiteralPath $Path).ProviderPath
        } else {
            throw "-WinProxyPath ${Path}: no such file or folder"
        }
    }
    if ($env:WINPROXY_HOME) {
        $folders.Add($env:WINPROXY_HOME)
    }
    $folders.Add((Split-Path -Path (Split-Path -Path $PSScriptRoot -Parent) -Parent))
    foreach ($name in $script:DefaultServiceNames) {
        $binary = Get-WinProxyServiceBinary -Name $name
        if ($binary) {
            $folders.Add((Split-Path -Path $binary -Parent))
        }
    }
    $folders.Add('C:\k')
    foreach ($folder in $folders) {
        $launcher = Get-WinProxyLauncherIn -Folder $folder
        if ($launcher) {
            return $launcher
        }
    }
    $onPath = Get-Command -Name 'winproxy.cmd' -CommandType Application -ErrorAction SilentlyContinue |
        Select-Object -First 1
    if ($onPath) {
        return $onPath.Source
    }
    throw "winproxy launcher not found (looked for winproxy.cmd, or kube-proxy.exe beside winproxy-agent.jar, in: $($folders -join ', ') and on the PATH); pass -WinProxyPath or set WINPROXY_HOME"
}

function Get-WinProxyLauncherIn {
    <#
    .SYNOPSIS
        The launcher in one folder: winproxy.cmd, else kube-proxy.exe when winproxy-agent.jar is beside it; $null.
    .PARAMETER Folder
        The folder to look in.
    #>
    param([string] $Folder)
    $cmd = Join-Path -Path $Folder -ChildPath 'winproxy.cmd'
    if (Test-Path -LiteralPath $cmd -PathType Leaf) {
        return (Resolve-Path -LiteralPath $cmd).ProviderPath
    }
    $exe = Join-Path -Path $Folder -ChildPath 'kube-proxy.exe'
    if ((Test-Path -LiteralPath $exe -PathType Leaf) -and (Test-Path -LiteralPath (Join-Path -Path $Folder -ChildPath 'winproxy-agent.jar') -PathType Leaf)) {
        return (Resolve-Path -LiteralPath $exe).ProviderPath
    }
    return $null
}

function Split-WinProxyCommandLine {
    <#
    .SYNOPSIS
        Splits a Windows command line into its arguments, as CommandLineToArgvW does for the common cases: blanks
        separate, double quotes group (and are removed), a backslash escapes a double quote.
    .PARAMETER CommandLine
        The command line, e.g. a service's binary path.
    .OUTPUTS
        System.String[].
    #>
    [OutputType([string[]])]
    param([string] $CommandLine)
    $arguments = @()
    $escapedQuote = [string] [char] 1
    foreach ($match in [regex]::Matches("$CommandLine", '(?:"(?:\\.|[^"\\])*"|[^\s"])+')) {
        $arguments += ($match.Value -replace '\\"', $escapedQuote -replace '"', '' -replace $escapedQuote, '"')
    }
    return $arguments
}

function Get-WinProxyServiceBinary {
    <#
    .SYNOPSIS
        The program a service runs (the first argument of its binary path), or $null when there is no such service.
    .PARAMETER Name
        The service name.
    #>
    param([string] $Name)
    $service = Get-CimInstance -ClassName Win32_Service -Filter "Name='$Name'" -ErrorAction SilentlyContinue
    if (-not $service -or -not $service.PathName) {
        return $null
    }
    return @(Split-WinProxyCommandLine -CommandLine $service.PathName)[0]
}

function Get-WinProxyServiceAgentArgument {
    <#
    .SYNOPSIS
        The proxy flags of the installed winproxy service (kube-proxy or kubeproxy), for plan, status and check.
    .DESCRIPTION
        Reads the service's binary path and returns the arguments after winproxy-agent.jar (a java.exe service of
        install-service.ps1) or after kube-proxy.exe (a swapped-in binary, also behind a log runner), without the
        ones that only concern the running service: --windows-service, --windows-priorityclass and the logging
        flags (--log-file, --log-dir, --logtostderr, --alsologtostderr, --log-file-max-size). Throws a one-line
        error when no such service runs winproxy, naming -AgentArgument.
    .PARAMETER Name
        The service names to look at, in order.
    .OUTPUTS
        System.String[].
    #>
    [OutputType([string[]])]
    param([string[]] $Name = $script:DefaultServiceNames)
    foreach ($candidate in $Name) {
        $service = Get-CimInstance -ClassName Win32_Service -Filter "Name='$candidate'" -ErrorAction SilentlyContinue
        if (-not $service) {
            continue
        }
        $arguments = @(Split-WinProxyCommandLine -CommandLine $service.PathName)
        $start = -1
        for ($i = 0; $i -lt $arguments.Count; $i++) {
            if ($arguments[$i] -match '(^|[\\/])(winproxy-agent\.jar|kube-proxy\.exe)$') {
                $start = $i + 1
            }
        }
        if ($start -lt 0) {
            continue
        }
        $flags = @()
        for ($i = $start; $i -lt $arguments.Count; $i++) {
            $argument = $arguments[$i]
            if ($argument -match '^--?(windows-service|logtostderr|alsologtostderr)(=.*)?$') {
                continue
            }
            if ($argument -match '^--?(log-file|log-dir|log-file-max-size|windows-priorityclass)(=.*)?$') {
                if (-not $Matches[2]) {
                    $i++
                }
                continue
            }
            $flags += $argument
        }
        return $flags
    }
    throw "no kube-proxy or kubeproxy service runs winproxy here to take the proxy flags from: pass -AgentArgument (for example '--config', 'C:\k\kube-proxy.yaml')"
}

function ConvertTo-WinProxyArgumentString {
    <#
    .SYNOPSIS
        Joins arguments into one Windows command line, quoting as CommandLineToArgvW expects.
    .PARAMETER Arguments
        The arguments, unquoted.
    .OUTPUTS
        System.String.
    .EXAMPLE
        ConvertTo-WinProxyArgumentString -Arguments @('trace', '--src', '10.0.0.1')
    #>
    [CmdletBinding()]
    [OutputType([string])]
    param(
        [string[]] $Arguments = @()
    )
    $quoted = foreach ($argument in $Arguments) {
        if ($argument -eq '') {
            '""'
        } elseif ($argument -notmatch '[\s"]') {
            $argument
        } else {
            $escaped = $argument -replace '(\\*)"', '$1$1\"'
            $escaped = $escaped -replace '(\\+)$', '$1$1'
            '"' + $escaped + '"'
        }
    }
    return ($quoted -join ' ')
}

function Invoke-WinProxyAgent {
    <#
    .SYNOPSIS
        Runs one winproxy command and returns its exit code, standard output and standard error.
    .DESCRIPTION
        Runs the launcher found by Resolve-WinProxyLauncher with the given arguments and waits for it. Standard
        output and standard error are read concurrently, so a chatty command cannot dead-lock.
    .PARAMETER Arguments
        The winproxy arguments, for example 'hns', 'list', '-o', 'json'.
    .PARAMETER WinProxyPath
        The launcher or distribution folder; see Resolve-WinProxyLauncher.
    .OUTPUTS
        PSCustomObject with ExitCode, StdOut and StdErr.
    .EXAMPLE
        Invoke-WinProxyAgent -Arguments @('hns', 'list')
    #>
    [CmdletBinding()]
    param(
        [Parameter(Mandatory = $true)]
        [string[]] $Arguments,
        [string] $WinProxyPath
    )
    $launcher = Resolve-WinProxyLauncher -Path $WinProxyPath
    $startInfo = [System.Diagnostics.ProcessStartInfo]::new()
    $startInfo.FileName = $launcher
    $startInfo.Arguments = ConvertTo-WinProxyArgumentString -Arguments $Arguments
    $startInfo.UseShellExecute = $false
    $startInfo.RedirectStandardOutput = $true
    $startInfo.RedirectStandardError = $true
    $startInfo.CreateNoWindow = $true
    Write-Verbose "running $launcher $($startInfo.Arguments)"
    $process = [System.Diagnostics.Process]::Start($startInfo)
    $stdout = $process.StandardOutput.ReadToEndAsync()
    $stderr = $process.StandardError.ReadToEndAsync()
    $process.WaitForExit()
    return [pscustomobject]@{
        ExitCode = $process.ExitCode
        StdOut   = $stdout.Result
        StdErr   = $stderr.Result
    }
}

function Invoke-WinProxyJson {
    <#
    .SYNOPSIS
        Runs a winproxy command with '-o json' and returns the parsed output.
    .DESCRIPTION
        Throws a one-line error naming the command, its exit code and the last line it wrote to standard error when
        the command fails or prints something that is not JSON.
    .PARAMETER Arguments
        The winproxy arguments without '-o json'.
    .PARAMETER WinProxyPath
        The launcher or distribution folder; see Resolve-WinProxyLauncher.
    .OUTPUTS
        PSCustomObject. The parsed JSON document.
    .EXAMPLE
        Invoke-WinProxyJson -Arguments @('plan')
    #>
    [CmdletBinding()]
    param(
        [Parameter(Mandatory = $true)]
        [string[]] $Arguments,
        [string] $WinProxyPath
    )
    $all = @($Arguments) + @('-o', 'json')
    $result = Invoke-WinProxyAgent -Arguments $all -WinProxyPath $WinProxyPath
    $command = "winproxy $($Arguments -join ' ')"
    if ($result.ExitCode -ne 0) {
        $reason = ($result.StdErr -split "`r?`n" | Where-Object { $_.Trim() } | Select-Object -Last 1)
        throw "$command failed with exit code $($result.ExitCode): $reason"
    }
    try {
        return ($result.StdOut | ConvertFrom-Json)
    } catch {
        throw "$command printed output that is not JSON: $($_.Exception.Message)"
    }
}
