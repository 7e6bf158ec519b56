# Running the winproxy launcher and reading its JSON output.
# Dot-sourced by WinProxy.psm1; not a module of its own.

function Resolve-WinProxyLauncher {
    <#
    .SYNOPSIS
        Finds the winproxy launcher (winproxy.cmd) the other functions run.
    .DESCRIPTION
        Looks, in order, at the -Path given, the WINPROXY_HOME environment variable, the distribution this module
        was installed from (two folders up from the module), and the PATH. Throws a one-line error naming the
        places it looked when none has the launcher.
    .PARAMETER Path
        The launcher, or the folder of an unpacked winproxy distribution.
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
    $candidates = [System.Collections.Generic.List[string]]::new()
    if ($Path) {
        if (Test-Path -LiteralPath $Path -PathType Container) {
            $candidates.Add((Join-Path -Path $Path -ChildPath 'winproxy.cmd'))
        } else {
            $candidates.Add($Path)
        }
    }
    if ($env:WINPROXY_HOME) {
        $candidates.Add((Join-Path -Path $env:WINPROXY_HOME -ChildPath 'winproxy.cmd'))
    }
    $distribution = Split-Path -Path (Split-Path -Path $PSScriptRoot -Parent) -Parent
    $candidates.Add((Join-Path -Path $distribution -ChildPath 'winproxy.cmd'))
    foreach ($candidate in $candidates) {
        if (Test-Path -LiteralPath $candidate -PathType Leaf) {
            return (Resolve-Path -LiteralPath $candidate).ProviderPath
        }
    }
    $onPath = Get-Command -Name 'winproxy.cmd' -CommandType Application -ErrorAction SilentlyContinue |
        Select-Object -First 1
    if ($onPath) {
        return $onPath.Source
    }
    throw "winproxy launcher not found (looked at: $($candidates -join ', ') and PATH); pass -WinProxyPath or set WINPROXY_HOME"
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
