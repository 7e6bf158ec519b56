# The diagnostics bundle (the offline replacement of collectlogs.ps1 for the proxy part).
# Dot-sourced by WinProxy.psm1; not a module of its own.

# What never goes into a bundle: bearer tokens, passwords and the key and token fields of a kubeconfig, wherever
# they appear (a log line, a command line, /configz). The value after the name is replaced.
$script:WinProxySecretPattern = '(?i)((?:token|password|client-key-data|bearer)"?\s*[:=]?\s*"?)[^\s",]+'
# The klog flags that say where the agent logs, in either form: --log-file=PATH, --log-file PATH, quoted or not.
$script:WinProxyLogFlagPattern = '(?i)--(log-file|log-dir)(?:=|\s+)(?:"([^"]+)"|([^\s"]+))'
# The names a bundle takes from a log folder: klog's files of winproxy and kube-proxy, with or without .exe
# (PROGRAM.HOST.USER.log.SEVERITY.TIME.PID, PROGRAM.SEVERITY, PROGRAM.log) and winproxy's own log files with their
# rotations (winproxy*.log, winproxy*.log.N). Nothing else in a folder such as C:\k is taken.
$script:WinProxyLogNamePattern = '(?i)^(?:winproxy|kube-proxy)(?:\.exe)?\.(?:[^\\/]+\.)?(?:log(?:\.[^\\/]+)?|INFO|WARNING|ERROR|FATAL)$|^winproxy[^\\/]*\.log(?:\.\d+)?$'
# Never collected, whatever names them (a flag, nssm, -LogPath): programs, scripts, keys, certificates, kubeconfigs
# (C:\k\config included), configuration and archives.
$script:WinProxyNeverCollectPattern = '(?i)\.(?:exe|dll|sys|bat|cmd|ps1|psm1|psd1|jar|key|pem|crt|cer|der|pfx|p12|jks|json|yaml|yml|conf|config|zip)$|kubeconfig|(?:^|[\\/])config$|(?:^|[\\/])\.kube(?:[\\/]|$)'

function Protect-WinProxySecret {
    <#
    .SYNOPSIS
        Replaces credentials in a text with <redacted> before it is written into a diagnostics bundle.
    .PARAMETER Text
        The text to clean.
    .OUTPUTS
        System.String.
    .EXAMPLE
        Protect-WinProxySecret -Text (Get-Content C:\k\winproxy\logs\winproxy.log -Raw)
    #>
    [CmdletBinding()]
    [OutputType([string])]
    param(
        [AllowNull()]
        [AllowEmptyString()]
        [string] $Text
    )
    if (-not $Text) {
        return $Text
    }
    return [regex]::Replace($Text, $script:WinProxySecretPattern, '${1}<redacted>')
}

function Get-WinProxyLogLocation {
    <#
    .SYNOPSIS
        The log files and folders a winproxy (or kube-proxy) command line writes to, from --log-file and --log-dir.
    .PARAMETER CommandLine
        Command lines or arguments, for example a service's PathName or the agent arguments.
    .PARAMETER Flag
        Only the values of this flag: log-file or log-dir; both by default.
    .OUTPUTS
        System.String[].
    .EXAMPLE
        Get-WinProxyLogLocation -CommandLine (Get-CimInstance Win32_Service -Filter "Name='kube-proxy'").PathName
    #>
    [CmdletBinding()]
    [OutputType([string[]])]
    param(
        [AllowEmptyCollection()]
        [string[]] $CommandLine = @(),
        [ValidateSet('log-file', 'log-dir', '')]
        [string] $Flag = ''
    )
    foreach ($line in @($CommandLine | Where-Object { $_ })) {
        foreach ($match in [regex]::Matches($line, $script:WinProxyLogFlagPattern)) {
            if ($Flag -and $match.Groups[1].Value -ne $Flag) {
                continue
            }
            if ($match.Groups[2].Success) { $match.Groups[2].Value } else { $match.Groups[3].Value }
        }
    }
}

function Get-WinProxyNssmLogPath {
    <#
    .SYNOPSIS
        The files nssm redirects a service's standard output and error to (its AppStdout and AppStderr values).
    .PARAMETER ServiceName
        The service names; services not registered with nssm are skipped.
    .OUTPUTS
        System.String[].
    .EXAMPLE
        Get-WinProxyNssmLogPath -ServiceName 'kube-proxy'
    #>
    [CmdletBinding()]
    [OutputType([string[]])]
    param(
        [AllowEmptyCollection()]
        [string[]] $ServiceName = @()
    )
    foreach ($name in $ServiceName) {
        $key = "HKLM:\SYSTEM\CurrentControlSet\Services\$name\Parameters"
        $values = Get-ItemProperty -LiteralPath $key -ErrorAction SilentlyContinue
        if (-not $values) {
            continue
        }
        foreach ($value in @('AppStdout', 'AppStderr')) {
            $member = $values.PSObject.Properties[$value]
            if ($member -and $member.Value) {
                [string] $member.Value
            }
        }
    }
}

function Select-WinProxyLogFile {
    <#
    .SYNOPSIS
        The log files a diagnostics bundle takes: the files named by a flag or nssm (with their rotations NAME.N),
        and the files of log folders whose names are winproxy's or kube-proxy's log names.
    .DESCRIPTION
        Folders are not searched recursively. No file whose name is a program's, a script's, a key's, a
        certificate's, a kubeconfig's or a configuration file's is ever returned, even when named explicitly.
    .PARAMETER NamedFile
        Files named by --log-file, nssm's AppStdout and AppStderr, or -LogPath.
    .PARAMETER Folder
        Log folders (--log-dir, the distribution's logs folder, C:\k) or wildcard paths.
    .OUTPUTS
        System.IO.FileInfo.
    .EXAMPLE
        Select-WinProxyLogFile -NamedFile 'C:\k\winproxy\logs\winproxy.log' -Folder 'C:\k'
    #>
    [CmdletBinding()]
    param(
        [AllowEmptyCollection()]
        [string[]] $NamedFile = @(),
        [AllowEmptyCollection()]
        [string[]] $Folder = @()
    )
    $seen = @{}
    $candidates = @()
    foreach ($file in @($NamedFile | Where-Object { $_ })) {
        $candidates += @(Get-Item -LiteralPath $file -ErrorAction SilentlyContinue)
        $candidates += @(Get-ChildItem -Path "$file.*" -File -ErrorAction SilentlyContinue |
            Where-Object { $_.Name -match '\.\d+$' })
    }
    foreach ($path in @($Folder | Where-Object { $_ })) {
        $candidates += @(Get-ChildItem -Path $path -File -ErrorAction SilentlyContinue |
            Where-Object { $_.Name -match $script:WinProxyLogNamePattern })
    }
    foreach ($item in $candidates) {
        if (-not $item -or $item.PSIsContainer -or $seen.ContainsKey($item.FullName)) {
            continue
        }
        $seen[$item.FullName] = $true
        if ($item.FullName -notmatch $script:WinProxyNeverCollectPattern) {
            $item
        }
    }
}

function Find-WinProxyStaleRemoteEndpoint {
    <#
    .SYNOPSIS
        The remote endpoints no load balancer references, from the agent's 'hns list -o json'.
    .DESCRIPTION
        A remote endpoint (an endpoint of a pod on another node) that no load balancer uses any more is stale:
        upstream kube-proxy leaks them, and they keep the pod IP bound to an old provider address. Endpoint IDs are
        compared without regard to letter case (HNS returns upper-case GUIDs).
    .PARAMETER Listing
        The object 'winproxy hns list -o json' prints (endpoints with remote, loadBalancers with backendEndpoints).
    .OUTPUTS
        The endpoint objects of the listing that are stale.
    .EXAMPLE
        Find-WinProxyStaleRemoteEndpoint -Listing (Invoke-WinProxyJson -Arguments @('hns', 'list'))
    #>
    [CmdletBinding()]
    param(
        [Parameter(Mandatory = $true)]
        [AllowNull()]
        [object] $Listing
    )
    $referenced = @{}
    foreach ($lb in @(Get-WinProxyMember -InputObject $Listing -Name 'loadBalancers')) {
        foreach ($id in @(Get-WinProxyMember -InputObject $lb -Name 'backendEndpoints')) {
            if ($id) {
                $referenced["$id".ToLowerInvariant()] = $true
            }
        }
    }
    foreach ($endpoint in @(Get-WinProxyMember -InputObject $Listing -Name 'endpoints')) {
        if ($endpoint -and (Get-WinProxyMember -InputObject $endpoint -Name 'remote') -eq $true -and
            -not $referenced.ContainsKey("$(Get-WinProxyMember -InputObject $endpoint -Name 'id')".ToLowerInvariant())) {
            $endpoint
        }
    }
}

function Save-WinProxyDiagnosticStep {
    <#
    .SYNOPSIS
        Runs one collection step of Get-WinProxyDiagnostics and writes its output to a file in the bundle.
    .DESCRIPTION
        A failing step never stops the collection: its error goes to errors.txt in the bundle and the next step
        runs.
    .PARAMETER Folder
        The bundle folder.
    .PARAMETER FileName
        The file to write, relative to the bundle folder.
    .PARAMETER Script
        The script block whose output is saved (objects are written as JSON, text as is).
    .EXAMPLE
        Save-WinProxyDiagnosticStep -Folder $dir -FileName 'hns-networks.json' -Script { Get-HnsNetwork }
    #>
    [CmdletBinding()]
    param(
        [Parameter(Mandatory = $true)]
        [string] $Folder,
        [Parameter(Mandatory = $true)]
        [string] $FileName,
        [Parameter(Mandatory = $true)]
        [scriptblock] $Script
    )
    $target = Join-Path -Path $Folder -ChildPath $FileName
    try {
        $output = & $Script
        if ($FileName -like '*.json') {
            $text = ConvertTo-Json -InputObject @($output) -Depth 20
        } else {
            $text = ($output | Out-String -Width 4096)
        }
        Set-Content -LiteralPath $target -Value (Protect-WinProxySecret -Text $text) -Encoding UTF8
    } catch {
        $line = "{0}: {1}" -f $FileName, $_.Exception.Message
        Add-Content -LiteralPath (Join-Path -Path $Folder -ChildPath 'errors.txt') -Value $line -Encoding UTF8
        Write-Verbose $line
    }
}

function Get-WinProxyDiagnostics {
    <#
    .SYNOPSIS
        Collects what support needs about winproxy and HNS on this node into one zip file.
    .DESCRIPTION
        The offline replacement of collectlogs.ps1 and networkhealth.ps1 for the proxy part: nothing is
        downloaded. The bundle holds HNS networks, endpoints and policy lists (in-box HostNetworkingService module),
        winproxy's view of them ('hns list -o json') with owning Services, the HNS version, the stale remote
        endpoints (remote endpoints no load balancer references), the plan (what winproxy would change), 'status -o
        json' (what is programmed per Service port) and 'check -o json' (the node's preconditions), the
        ownership journal (ownership.json and ownership.log of the state directory), /healthz, /configz and
        /metrics, the Windows service configuration and recovery actions, the log files of winproxy and kube-proxy
        (the --log-file of the service command lines, nssm's AppStdout and AppStderr, and from the --log-dir
        folders, the distribution's logs folder and C:\k only files with winproxy's or kube-proxy's log names;
        never programs, keys, certificates, kubeconfigs or configuration files), winproxy's Application event log entries,
        versions (winproxy, Java, Windows build, hotfixes), the HNS event log, IP configuration, routes and the
        excluded and dynamic port ranges (HNS error 0x803B0013). Tokens, passwords and kubeconfig keys are replaced
        by <redacted> in everything written, and no kubeconfig file is collected. A step that fails is listed in
        errors.txt and does not stop the others.
    .PARAMETER OutputPath
        The zip file to write; winproxy-diagnostics-<computer>-<time>.zip in the current folder by default.
    .PARAMETER LogPath
        Log files (taken with their rotations) or folders (only files with winproxy's or kube-proxy's log names are
        taken; wildcards allowed). By default the --log-file and --log-dir of the service command lines and of
        -AgentArgument, nssm's AppStdout and AppStderr of the services, the logs folder of the distribution,
        C:\var\log\winproxy, C:\var\log\kube-proxy and C:\k.
    .PARAMETER StateDirectory
        The agent's state directory (--state-dir), where the ownership journal is; the --state-dir of
        -AgentArgument, else $env:ProgramData\winproxy.
    .PARAMETER MetricsAddress
        Where the agent serves /metrics and /configz (--metrics-bind-address); 127.0.0.1:10249 by default.
    .PARAMETER ServiceName
        The service names to describe.
    .PARAMETER AgentArgument
        The proxy flags for 'winproxy plan', 'status' and 'check' (for example '--config',
        'C:\k\kube-proxy.yaml'); without them, the flags of the installed service that runs winproxy
        (Get-WinProxyServiceAgentArgument), and when there is none the three are skipped (errors.txt says why).
    .PARAMETER WinProxyPath
        The launcher or distribution folder; see Resolve-WinProxyLauncher.
    .OUTPUTS
        System.IO.FileInfo. The zip file.
    .EXAMPLE
        Get-WinProxyDiagnostics -AgentArgument '--config', 'C:\k\kube-proxy.yaml'
    #>
    [CmdletBinding()]
    param(
        [string] $OutputPath,
        [string[]] $LogPath,
        [string[]] $ServiceName = $script:DefaultServiceNames,
        [string[]] $AgentArgument = @(),
        [string] $StateDirectory,
        [string] $MetricsAddress = '127.0.0.1:10249',
        [string] $WinProxyPath
    )
    if (-not $StateDirectory) {
        $joined = $AgentArgument -join ' '
        if ($joined -match '--state-dir(?:=|\s+)(?:"([^"]+)"|(\S+))') {
            $StateDirectory = if ($Matches[1]) { $Matches[1] } else { $Matches[2] }
        } else {
            $StateDirectory = Join-Path -Path $env:ProgramData -ChildPath 'winproxy'
        }
    }
    $stamp = Get-Date -Format 'yyyyMMdd-HHmmss'
    if (-not $OutputPath) {
        $OutputPath = Join-Path -Path (Get-Location).ProviderPath -ChildPath "winproxy-diagnostics-$env:COMPUTERNAME-$stamp.zip"
    }
    $folder = Join-Path -Path ([System.IO.Path]::GetTempPath()) -ChildPath "winproxy-diagnostics-$stamp"
    New-Item -ItemType Directory -Path $folder -Force | Out-Null
    try {
        Save-WinProxyDiagnosticStep -Folder $folder -FileName 'hns-networks.json' -Script { Get-HnsNetwork }
        Save-WinProxyDiagnosticStep -Folder $folder -FileName 'hns-endpoints.json' -Script { Get-HnsEndpoint }
        Save-WinProxyDiagnosticStep -Folder $folder -FileName 'hns-policylists.json' -Script { Get-HnsPolicyList }
        Save-WinProxyDiagnosticStep -Folder $folder -FileName 'hnsdiag.txt' -Script { & hnsdiag.exe list all -d }
        $listing = $null
        Save-WinProxyDiagnosticStep -Folder $folder -FileName 'winproxy-hns-list.json' -Script {
            $script:WinProxyDiagnosticListing = Invoke-WinProxyJson -Arguments @('hns', 'list') -WinProxyPath $WinProxyPath
            $script:WinProxyDiagnosticListing
        }
        $listing = $script:WinProxyDiagnosticListing
        $script:WinProxyDiagnosticListing = $null
        if ($listing) {
            Save-WinProxyDiagnosticStep -Folder $folder -FileName 'hns-version.txt' -Script {
                'HNS ' + (Get-WinProxyMember -InputObject $listing -Name 'hnsVersion')
            }
            Save-WinProxyDiagnosticStep -Folder $folder -FileName 'winproxy-hns-networks.json' -Script {
                Get-WinProxyMember -InputObject $listing -Name 'networks'
            }
            Save-WinProxyDiagnosticStep -Folder $folder -FileName 'stale-remote-endpoints.json' -Script {
                Find-WinProxyStaleRemoteEndpoint -Listing $listing
            }
        }
        $journal = Join-Path -Path $folder -ChildPath 'journal'
        New-Item -ItemType Directory -Path $journal -Force | Out-Null
        foreach ($name in @('ownership.json', 'ownership.log')) {
            Save-WinProxyDiagnosticStep -Folder $journal -FileName $name -Script {
                Get-Content -LiteralPath (Join-Path -Path $StateDirectory -ChildPath $name) -Raw -ErrorAction Stop
            }
        }
        foreach ($endpoint in @(@{ Path = 'configz'; File = 'configz.json' }, @{ Path = 'metrics'; File = 'metrics.txt' })) {
            Save-WinProxyDiagnosticStep -Folder $folder -FileName $endpoint.File -Script {
                (Invoke-WebRequest -UseBasicParsing -TimeoutSec 10 -Uri "http://$MetricsAddress/$($endpoint.Path)").Content
            }
        }
        Save-WinProxyDiagnosticStep -Folder $folder -FileName 'winproxy-events.txt' -Script {
            Get-WinEvent -FilterHashtable @{ LogName = 'Application'; ProviderName = 'winproxy' } -MaxEvents 100 |
                Format-List -Property @('TimeCreated', 'Id', 'LevelDisplayName', 'Message')
        }
        # plan, status and check with the given flags, else the installed service's (errors.txt says when neither).
        $proxyFlags = $AgentArgument
        if ($proxyFlags.Count -eq 0) {
            Save-WinProxyDiagnosticStep -Folder $folder -FileName 'winproxy-service-flags.txt' -Script {
                $script:WinProxyDiagnosticFlags = @(Get-WinProxyServiceAgentArgument -Name $ServiceName)
                $script:WinProxyDiagnosticFlags -join ' '
            }
            $proxyFlags = @($script:WinProxyDiagnosticFlags)
        }
        if ($proxyFlags.Count -gt 0) {
            foreach ($command in @(@{ Name = 'plan'; File = 'winproxy-plan.json' },
                    @{ Name = 'status'; File = 'winproxy-status.json' },
                    @{ Name = 'check'; File = 'winproxy-check.json' })) {
                Save-WinProxyDiagnosticStep -Folder $folder -FileName $command.File -Script {
                    Invoke-WinProxyJson -Arguments (@($command.Name) + $proxyFlags) -WinProxyPath $WinProxyPath
                }
            }
        }
        Save-WinProxyDiagnosticStep -Folder $folder -FileName 'winproxy-health.json' -Script { Get-WinProxyHealth }
        Save-WinProxyDiagnosticStep -Folder $folder -FileName 'winproxy-service.json' -Script {
            Get-WinProxyService -Name $ServiceName
        }
        Save-WinProxyDiagnosticStep -Folder $folder -FileName 'scqueryex.txt' -Script {
            foreach ($name in @($ServiceName) + @('hns', 'vmcompute', 'kubelet', 'containerd')) {
                & sc.exe queryex $name
                & sc.exe qc $name
            }
        }
        Save-WinProxyDiagnosticStep -Folder $folder -FileName 'versions.txt' -Script {
            $agent = Invoke-WinProxyAgent -Arguments @('version') -WinProxyPath $WinProxyPath
            'winproxy: ' + ($agent.StdOut + $agent.StdErr).Trim()
            $os = Get-CimInstance -ClassName Win32_OperatingSystem
            'windows: {0} build {1}' -f $os.Caption, $os.BuildNumber
            'powershell: ' + $PSVersionTable.PSVersion
            Get-HotFix | Sort-Object -Property InstalledOn | Format-Table -AutoSize -Property @('HotFixID', 'InstalledOn', 'Description')
        }
        Save-WinProxyDiagnosticStep -Folder $folder -FileName 'hns-events.txt' -Script {
            Get-WinEvent -LogName 'Microsoft-Windows-Host-Network-Service-Admin' -MaxEvents 500 |
                Format-List -Property @('TimeCreated', 'Id', 'LevelDisplayName', 'Message')
        }
        Save-WinProxyDiagnosticStep -Folder $folder -FileName 'ip.txt' -Script { & ipconfig.exe /allcompartments /all }
        Save-WinProxyDiagnosticStep -Folder $folder -FileName 'routes.txt' -Script {
            Get-NetRoute -IncludeAllCompartments | Format-Table -AutoSize
        }
        Save-WinProxyDiagnosticStep -Folder $folder -FileName 'portranges.txt' -Script {
            & netsh.exe int ipv4 show excludedportrange protocol=tcp
            & netsh.exe int ipv4 show excludedportrange protocol=udp
            & netsh.exe int ipv4 show dynamicportrange protocol=tcp
            & netsh.exe int ipv4 show dynamicportrange protocol=udp
        }
        $namedFiles = @()
        $logFolders = @()
        if ($LogPath) {
            foreach ($path in $LogPath) {
                if (Test-Path -LiteralPath $path -PathType Leaf) { $namedFiles += $path } else { $logFolders += $path }
            }
        } else {
            $distribution = Split-Path -Path (Split-Path -Path $PSScriptRoot -Parent) -Parent
            $commandLines = @($AgentArgument -join ' ')
            foreach ($name in $ServiceName) {
                $service = Get-CimInstance -ClassName Win32_Service -Filter "Name='$name'" -ErrorAction SilentlyContinue
                if ($service) {
                    $commandLines += $service.PathName
                }
            }
            $namedFiles = @(Get-WinProxyLogLocation -CommandLine $commandLines -Flag 'log-file') +
                @(Get-WinProxyNssmLogPath -ServiceName $ServiceName)
            $logFolders = @(Get-WinProxyLogLocation -CommandLine $commandLines -Flag 'log-dir') +
                @((Join-Path -Path $distribution -ChildPath 'logs'), 'C:\var\log\winproxy', 'C:\var\log\kube-proxy', 'C:\k')
        }
        $logs = Join-Path -Path $folder -ChildPath 'logs'
        New-Item -ItemType Directory -Path $logs -Force | Out-Null
        foreach ($file in @(Select-WinProxyLogFile -NamedFile $namedFiles -Folder $logFolders)) {
            $text = Get-Content -LiteralPath $file.FullName -Raw -ErrorAction SilentlyContinue
            Set-Content -LiteralPath (Join-Path -Path $logs -ChildPath $file.Name) -Encoding UTF8 `
                -Value (Protect-WinProxySecret -Text $text)
        }
        Compress-Archive -Path (Join-Path -Path $folder -ChildPath '*') -DestinationPath $OutputPath -Force
        Get-Item -LiteralPath $OutputPath
    } finally {
        Remove-Item -LiteralPath $folder -Recurse -Force -ErrorAction SilentlyContinue
    }
}
