# The diagnostics bundle (the offline replacement of collectlogs.ps1 for the proxy part).
# Dot-sourced by WinProxy.psm1; not a module of its own.

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
        Set-Content -LiteralPath $target -Value $text -Encoding UTF8
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
        The offline replacement of collectlogs.ps1 for the proxy part: nothing is downloaded. The bundle holds
        HNS networks, endpoints and policy lists (in-box HostNetworkingService module), winproxy's view of them
        ('hns list -o json') with owning Services, the plan (what winproxy would change), the health endpoint, the
        Windows service configuration and recovery actions, the agent's log files, versions (winproxy, Java, Windows
        build, hotfixes), the HNS event log, IP configuration, routes and the excluded and dynamic port ranges
        (HNS error 0x803B0013). A step that fails is listed in errors.txt and does not stop the others.
    .PARAMETER OutputPath
        The zip file to write; winproxy-diagnostics-<computer>-<time>.zip in the current folder by default.
    .PARAMETER LogPath
        Files or folders with the agent's logs (wildcards allowed). By default the logs folder of the distribution,
        C:\var\log\winproxy and C:\k\winproxy*.log.
    .PARAMETER ServiceName
        The service names to describe.
    .PARAMETER AgentArgument
        Arguments for 'winproxy plan' (for example '--config', 'C:\k\kube-proxy.yaml'); the plan is skipped
        without them.
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
        [string] $WinProxyPath
    )
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
        Save-WinProxyDiagnosticStep -Folder $folder -FileName 'winproxy-hns-list.json' -Script {
            Invoke-WinProxyJson -Arguments @('hns', 'list') -WinProxyPath $WinProxyPath
        }
        if ($AgentArgument.Count -gt 0) {
            Save-WinProxyDiagnosticStep -Folder $folder -FileName 'winproxy-plan.json' -Script {
                Invoke-WinProxyJson -Arguments (@('plan') + $AgentArgument) -WinProxyPath $WinProxyPath
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
            $agent = Invoke-WinProxyAgent -Arguments @('--version') -WinProxyPath $WinProxyPath
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
        if (-not $LogPath) {
            $distribution = Split-Path -Path (Split-Path -Path $PSScriptRoot -Parent) -Parent
            $LogPath = @((Join-Path -Path $distribution -ChildPath 'logs'), 'C:\var\log\winproxy', 'C:\k\winproxy*.log')
        }
        $logs = Join-Path -Path $folder -ChildPath 'logs'
        New-Item -ItemType Directory -Path $logs -Force | Out-Null
        foreach ($path in $LogPath) {
            Get-ChildItem -Path $path -File -Recurse -ErrorAction SilentlyContinue |
                Copy-Item -Destination $logs -ErrorAction SilentlyContinue
        }
        Compress-Archive -Path (Join-Path -Path $folder -ChildPath '*') -DestinationPath $OutputPath -Force
        Get-Item -LiteralPath $OutputPath
    } finally {
        Remove-Item -LiteralPath $folder -Recurse -Force -ErrorAction SilentlyContinue
    }
}
