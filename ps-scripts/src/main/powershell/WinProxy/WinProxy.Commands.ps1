# The agent commands operators run: plan, trace, cleanup; and the health endpoint and Windows service.
# Dot-sourced by WinProxy.psm1; not a module of its own.

function Get-WinProxyPlan {
    <#
    .SYNOPSIS
        Shows what winproxy wants in HNS and what it would change, without changing anything.
    .DESCRIPTION
        Runs 'winproxy plan -o json' and returns its document: loadBalancers (desired, each with its Service),
        remoteEndpoints, operations (the creates, updates and deletes a sync would make) and warnings. An empty
        operations list means HNS already matches the cluster.
    .PARAMETER AgentArgument
        Arguments for 'winproxy plan': the normal proxy flags (--config, --kubeconfig, --hostname-override, ...) or
        offline inputs (--manifests DIR, --hns-state FILE). Without them, the flags of the installed kube-proxy
        (or kubeproxy) service that runs winproxy (Get-WinProxyServiceAgentArgument).
    .PARAMETER Operations
        Return only the operations.
    .PARAMETER Warnings
        Return only the warnings.
    .PARAMETER WinProxyPath
        The launcher or distribution folder; see Resolve-WinProxyLauncher.
    .EXAMPLE
        Get-WinProxyPlan
    .EXAMPLE
        Get-WinProxyPlan -AgentArgument '--config', 'C:\k\kube-proxy.yaml' -Operations
    #>
    [CmdletBinding(DefaultParameterSetName = 'All')]
    param(
        [string[]] $AgentArgument = @(),
        [Parameter(ParameterSetName = 'Operations')]
        [switch] $Operations,
        [Parameter(ParameterSetName = 'Warnings')]
        [switch] $Warnings,
        [string] $WinProxyPath
    )
    if ($AgentArgument.Count -eq 0) {
        $AgentArgument = @(Get-WinProxyServiceAgentArgument)
    }
    $plan = Invoke-WinProxyJson -Arguments (@('plan') + $AgentArgument) -WinProxyPath $WinProxyPath
    if ($Operations) {
        return @(Get-WinProxyMember -InputObject $plan -Name 'operations')
    }
    if ($Warnings) {
        return @(Get-WinProxyMember -InputObject $plan -Name 'warnings')
    }
    return $plan
}

function Trace-WinProxyPacket {
    <#
    .SYNOPSIS
        Explains what HNS/VFP does with one packet: which load balancer matches and which backends it may reach.
    .DESCRIPTION
        Runs 'winproxy trace --src SOURCE --dst DESTINATION --protocol PROTOCOL -o json'. The result has verdict
        (forwarded, dropped or no-policy), loadBalancer, backends, dsr and sourceAddress (after SNAT).
    .PARAMETER Source
        The client IP address.
    .PARAMETER Destination
        The destination as IP:PORT ([IPv6]:PORT for IPv6).
    .PARAMETER Protocol
        TCP (default) or UDP: the protocols HNS load balancers serve on Windows (kube-proxy's winkernel proxies no
        SCTP).
    .PARAMETER AgentArgument
        Extra arguments, as for Get-WinProxyPlan.
    .PARAMETER WinProxyPath
        The launcher or distribution folder; see Resolve-WinProxyLauncher.
    .EXAMPLE
        Trace-WinProxyPacket -Source 10.244.1.5 -Destination 10.96.0.10:53 -Protocol UDP
    #>
    [CmdletBinding()]
    param(
        [Parameter(Mandatory = $true)]
        [string] $Source,
        [Parameter(Mandatory = $true)]
        [ValidatePattern('^(\[[0-9A-Fa-f:.]+\]|[^:\s]+):\d{1,5}$')]
        [string] $Destination,
        [ValidateSet('TCP', 'UDP')]
        [string] $Protocol = 'TCP',
        [string[]] $AgentArgument = @(),
        [string] $WinProxyPath
    )
    $arguments = @('trace', '--src', $Source, '--dst', $Destination, '--protocol', $Protocol) + $AgentArgument
    Invoke-WinProxyJson -Arguments $arguments -WinProxyPath $WinProxyPath
}

function Get-WinProxyServiceStatus {
    <#
    .SYNOPSIS
        What winproxy has programmed for each Service port: 'winproxy status -o json' as one object per entry.
    .DESCRIPTION
        Runs 'winproxy status -o json' and emits one WinProxy.ServiceStatus object per element of the document:
        the elements of its top-level array, or of its "ports" field when the document is an object with one
        (one per Service port), else the document itself. Each object carries the fields the command prints,
        unchanged; filter and format them with the usual cmdlets (Where-Object, Format-Table).
    .PARAMETER AgentArgument
        Arguments for 'winproxy status' (the proxy flags, as for Get-WinProxyPlan); without them, the flags of
        the installed kube-proxy (or kubeproxy) service that runs winproxy.
    .PARAMETER WinProxyPath
        The launcher or distribution folder; see Resolve-WinProxyLauncher.
    .OUTPUTS
        WinProxy.ServiceStatus objects.
    .EXAMPLE
        Get-WinProxyServiceStatus | Format-Table
    #>
    [CmdletBinding()]
    param(
        [string[]] $AgentArgument = @(),
        [string] $WinProxyPath
    )
    if ($AgentArgument.Count -eq 0) {
        $AgentArgument = @(Get-WinProxyServiceAgentArgument)
    }
    $document = Invoke-WinProxyJson -Arguments (@('status') + $AgentArgument) -WinProxyPath $WinProxyPath
    foreach ($entry in @(ConvertTo-WinProxyStatusEntry -Document $document)) {
        $entry.PSObject.TypeNames.Insert(0, 'WinProxy.ServiceStatus')
        $entry
    }
}

function ConvertTo-WinProxyStatusEntry {
    <#
    .SYNOPSIS
        The entries of a 'winproxy status -o json' document: its array's elements, else its "ports" field's, else
        the document itself.
    .PARAMETER Document
        The parsed JSON document.
    #>
    param([object] $Document)
    if ($null -eq $Document) {
        return @()
    }
    if ($Document -is [System.Array]) {
        return $Document
    }
    $ports = Get-WinProxyMember -InputObject $Document -Name 'ports'
    if ($null -ne $ports) {
        return @($ports)
    }
    return @($Document)
}

function Invoke-WinProxyCleanup {
    <#
    .SYNOPSIS
        Removes the HNS objects winproxy owns (load balancers and remote endpoints), or every load balancer.
    .DESCRIPTION
        Runs 'winproxy cleanup'. Without -All only what winproxy's ownership journal lists is deleted, and
        leftovers it does not own are reported, not deleted; this replaces the old
        'Get-HnsPolicyList | Remove-HnsPolicyList'. With -All every HNS load balancer is deleted, which is what
        migrating from upstream kube-proxy needs once. Stop the winproxy service first. Local endpoints are never
        touched: the CNI owns them.
    .PARAMETER All
        Delete every HNS load balancer, whoever created it.
    .PARAMETER AgentArgument
        Extra arguments for 'winproxy cleanup'.
    .PARAMETER WinProxyPath
        The launcher or distribution folder; see Resolve-WinProxyLauncher.
    .EXAMPLE
        Invoke-WinProxyCleanup -WhatIf
    .EXAMPLE
        Invoke-WinProxyCleanup -All -Confirm:$false
    #>
    [CmdletBinding(SupportsShouldProcess = $true, ConfirmImpact = 'High')]
    param(
        [switch] $All,
        [string[]] $AgentArgument = @(),
        [string] $WinProxyPath
    )
    $arguments = @('cleanup')
    $target = 'the HNS objects winproxy owns'
    if ($All) {
        $arguments += '--all'
        $target = 'every HNS load balancer on this node'
    }
    $arguments += $AgentArgument
    if ($PSCmdlet.ShouldProcess($target, 'winproxy cleanup')) {
        $result = Invoke-WinProxyAgent -Arguments $arguments -WinProxyPath $WinProxyPath
        $lines = @(($result.StdOut + "`n" + $result.StdErr) -split "`r?`n" | Where-Object { $_.Trim() })
        if ($result.ExitCode -ne 0) {
            throw "winproxy $($arguments -join ' ') failed with exit code $($result.ExitCode): $($lines | Select-Object -Last 1)"
        }
        $lines
    }
}

function Get-WinProxyHealth {
    <#
    .SYNOPSIS
        Reads winproxy's health endpoint (/healthz on port 10256, as kube-proxy serves it).
    .DESCRIPTION
        Returns the HTTP status (200 healthy, 503 not healthy), whether the proxy is healthy, and the
        lastUpdated / currentTime timestamps of the last successful sync. A refused connection means the agent is
        not running or listens elsewhere (--healthz-bind-address).
    .PARAMETER Address
        The address the health server listens on; 127.0.0.1 by default.
    .PARAMETER Port
        The port; 10256 by default.
    .PARAMETER Path
        /healthz (default) or /livez.
    .PARAMETER TimeoutSec
        How long to wait for the answer.
    .EXAMPLE
        Get-WinProxyHealth
    .EXAMPLE
        Get-WinProxyHealth -Path /livez
    #>
    [CmdletBinding()]
    param(
        [string] $Address = '127.0.0.1',
        [ValidateRange(1, 65535)]
        [int] $Port = 10256,
        [ValidateSet('/healthz', '/livez')]
        [string] $Path = '/healthz',
        [ValidateRange(1, 300)]
        [int] $TimeoutSec = 5
    )
    $hostPart = $Address
    if ($Address -match ':') {
        $hostPart = "[$Address]"
    }
    $url = "http://${hostPart}:$Port$Path"
    $request = [System.Net.WebRequest]::Create($url)
    $request.Timeout = $TimeoutSec * 1000
    $response = $null
    try {
        $response = $request.GetResponse()
    } catch [System.Net.WebException] {
        $webError = $_.Exception
        if ($webError -is [System.Management.Automation.MethodInvocationException]) {
            $webError = $webError.InnerException
        }
        # A 503 is an answer, not a failure: its body still says when the proxy last synced.
        $response = $webError.Response
        if ($null -eq $response) {
            throw "health endpoint $url not reachable: $($webError.Message)"
        }
    }
    try {
        $reader = [System.IO.StreamReader]::new($response.GetResponseStream())
        $body = $reader.ReadToEnd()
        $status = [int]$response.StatusCode
    } finally {
        $response.Close()
    }
    $document = $null
    try {
        $document = $body | ConvertFrom-Json
    } catch {
        Write-Verbose "the answer of $url is not JSON"
    }
    [pscustomobject]@{
        PSTypeName  = 'WinProxy.Health'
        Url         = $url
        StatusCode  = $status
        Healthy     = ($status -eq 200)
        LastUpdated = Get-WinProxyMember -InputObject $document -Name 'lastUpdated'
        CurrentTime = Get-WinProxyMember -InputObject $document -Name 'currentTime'
        Body        = $body
    }
}

function Get-WinProxyService {
    <#
    .SYNOPSIS
        Shows the winproxy Windows service: state, start mode, command line, process and recovery actions.
    .DESCRIPTION
        Looks for the service by name (kube-proxy, then kubeproxy, unless -Name is given) and returns its state
        together with 'sc.exe qfailure' and 'sc.exe qfailureflag', so that missing recovery actions are visible.
    .PARAMETER Name
        The service name.
    .EXAMPLE
        Get-WinProxyService
    #>
    [CmdletBinding()]
    param(
        [string[]] $Name = $script:DefaultServiceNames
    )
    $found = $false
    foreach ($candidate in $Name) {
        $service = Get-CimInstance -ClassName Win32_Service -Filter "Name='$candidate'" -ErrorAction SilentlyContinue
        if (-not $service) {
            continue
        }
        $found = $true
        [pscustomobject]@{
            PSTypeName   = 'WinProxy.Service'
            Name         = $service.Name
            State        = $service.State
            StartMode    = $service.StartMode
            ExitCode     = $service.ExitCode
            ServiceSpecificExitCode = $service.ServiceSpecificExitCode
            ProcessId    = $service.ProcessId
            PathName     = $service.PathName
            FailureActions = (& sc.exe qfailure $service.Name 2>&1 | Out-String).Trim()
            FailureActionsFlag = (& sc.exe qfailureflag $service.Name 2>&1 | Out-String).Trim()
        }
    }
    if (-not $found) {
        Write-Warning "no service named $($Name -join ' or ') is installed"
    }
}
