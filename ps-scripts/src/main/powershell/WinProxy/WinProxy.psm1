# WinProxy troubleshooting module.
#
# Wraps the agent's JSON outputs (hns list, plan, trace, cleanup) and the in-box HostNetworkingService cmdlets
# (Get-HnsNetwork, Get-HnsEndpoint, Get-HnsPolicyList) so that operators can answer "which Service does this HNS
# load balancer serve, and is it what winproxy wants?" without grepping logs for IP addresses. Works offline: it
# downloads nothing.

Set-StrictMode -Version 3.0

$script:DefaultServiceNames = @('kube-proxy', 'kubeproxy')

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

function Get-WinProxyMember {
    <#
    .SYNOPSIS
        Returns the value of the first of several property names an object has, or $null.
    .DESCRIPTION
        The HNS v1 view, the HCN v2 documents and the agent's JSON spell the same fields differently (VIPs,
        FrontendVIPs, frontendVIPs); this reads whichever is present. PowerShell property names are
        case-insensitive.
    .PARAMETER InputObject
        The object to read.
    .PARAMETER Name
        The candidate property names, in order of preference.
    .EXAMPLE
        Get-WinProxyMember -InputObject $policy -Name 'FrontendVIPs', 'VIPs'
    #>
    [CmdletBinding()]
    param(
        [Parameter(Mandatory = $true)]
        [AllowNull()]
        [object] $InputObject,
        [Parameter(Mandatory = $true)]
        [string[]] $Name
    )
    if ($null -eq $InputObject) {
        return $null
    }
    foreach ($candidate in $Name) {
        $property = $InputObject.PSObject.Properties[$candidate]
        if ($property) {
            return $property.Value
        }
    }
    return $null
}

function ConvertTo-WinProxyProtocolName {
    <#
    .SYNOPSIS
        Turns an HNS protocol number (6, 17, 132) or name into TCP, UDP or SCTP.
    .PARAMETER Protocol
        The protocol as HNS or the agent prints it.
    .OUTPUTS
        System.String.
    .EXAMPLE
        ConvertTo-WinProxyProtocolName -Protocol 6
    #>
    [CmdletBinding()]
    [OutputType([string])]
    param(
        [AllowNull()]
        [object] $Protocol
    )
    if ($null -eq $Protocol) {
        return $null
    }
    $text = "$Protocol".Trim()
    switch ($text) {
        '6' { return 'TCP' }
        '17' { return 'UDP' }
        '132' { return 'SCTP' }
    }
    return $text.ToUpperInvariant()
}

function ConvertTo-WinProxyLoadBalancer {
    <#
    .SYNOPSIS
        Normalizes one load balancer from the agent's JSON, an HCN v2 document or an HNS v1 policy list.
    .DESCRIPTION
        Produces a WinProxy.LoadBalancer object with Id, Service ("namespace/name", or $null when no Service owns
        it), Port (the service port name), Kind, Protocol, Vips, ExternalPort, InternalPort, Backends, SourceVip,
        Dsr and Source (where the data came from).
    .PARAMETER InputObject
        The load balancer object.
    .PARAMETER Source
        Where it came from: Agent, HnsV1 or HnsV2.
    .EXAMPLE
        Get-HnsPolicyList | ForEach-Object { ConvertTo-WinProxyLoadBalancer -InputObject $_ -Source HnsV1 }
    #>
    [CmdletBinding()]
    param(
        [Parameter(Mandatory = $true, ValueFromPipeline = $true)]
        [object] $InputObject,
        [ValidateSet('Agent', 'HnsV1', 'HnsV2')]
        [string] $Source = 'Agent'
    )
    process {
        $lb = $InputObject
        $policy = $lb
        $mapping = $null
        if ($Source -eq 'HnsV1') {
            $policy = @(Get-WinProxyMember -InputObject $lb -Name 'Policies') |
                Where-Object { $_ -and (Get-WinProxyMember -InputObject $_ -Name 'Type') -eq 'ELB' } |
                Select-Object -First 1
        } else {
            $mapping = @(Get-WinProxyMember -InputObject $lb -Name 'PortMappings') | Select-Object -First 1
        }
        $flags = Get-WinProxyMember -InputObject $lb -Name 'Flags'
        $dsr = Get-WinProxyMember -InputObject $lb -Name 'dsr'
        if ($null -eq $dsr) {
            $dsr = Get-WinProxyMember -InputObject $policy -Name 'IsDSR'
        }
        if ($null -eq $dsr -and $Source -eq 'HnsV2' -and $null -ne $flags) {
            $dsr = (([int64]$flags -band 1) -eq 1)
        }
        $backends = Get-WinProxyMember -InputObject $lb -Name 'backends', 'HostComputeEndpoints', 'References'
        $backends = @($backends | Where-Object { $_ } | ForEach-Object { "$_" -replace '^/endpoints/', '' })
        $protocol = Get-WinProxyMember -InputObject $lb -Name 'protocol'
        if ($null -eq $protocol) {
            $protocol = Get-WinProxyMember -InputObject $mapping -Name 'Protocol'
        }
        if ($null -eq $protocol) {
            $protocol = Get-WinProxyMember -InputObject $policy -Name 'Protocol'
        }
        $external = Get-WinProxyMember -InputObject $lb -Name 'externalPort'
        if ($null -eq $external) {
            $external = Get-WinProxyMember -InputObject $mapping -Name 'ExternalPort'
        }
        if ($null -eq $external) {
            $external = Get-WinProxyMember -InputObject $policy -Name 'ExternalPort'
        }
        $internal = Get-WinProxyMember -InputObject $lb -Name 'internalPort'
        if ($null -eq $internal) {
            $internal = Get-WinProxyMember -InputObject $mapping -Name 'InternalPort'
        }
        if ($null -eq $internal) {
            $internal = Get-WinProxyMember -InputObject $policy -Name 'InternalPort'
        }
        $vips = Get-WinProxyMember -InputObject $lb -Name 'frontendVIPs', 'vips'
        if ($null -eq $vips) {
            $vips = Get-WinProxyMember -InputObject $policy -Name 'VIPs'
        }
        $sourceVip = Get-WinProxyMember -InputObject $lb -Name 'sourceVIP'
        if ($null -eq $sourceVip) {
            $sourceVip = Get-WinProxyMember -InputObject $policy -Name 'SourceVIP'
        }
        $result = [pscustomobject]@{
            PSTypeName   = 'WinProxy.LoadBalancer'
            Id           = Get-WinProxyMember -InputObject $lb -Name 'id'
            Service      = Get-WinProxyMember -InputObject $lb -Name 'service'
            Port         = Get-WinProxyMember -InputObject $lb -Name 'port', 'portName'
            Kind         = Get-WinProxyMember -InputObject $lb -Name 'kind'
            Protocol     = ConvertTo-WinProxyProtocolName -Protocol $protocol
            Vips         = @($vips | Where-Object { $_ })
            ExternalPort = $external
            InternalPort = $internal
            Backends     = $backends
            SourceVip    = $sourceVip
            Dsr          = [bool]$dsr
            Source       = $Source
        }
        return $result
    }
}

function Get-WinProxyLoadBalancerKey {
    <#
    .SYNOPSIS
        The identity that joins an HNS load balancer to the one winproxy wants: protocol, VIP and external port.
    .DESCRIPTION
        Returns one key per VIP ("TCP|10.96.0.10|53"); a load balancer without VIPs (NodePort style, all host
        addresses) gets the key with an empty VIP.
    .PARAMETER LoadBalancer
        A WinProxy.LoadBalancer object.
    .OUTPUTS
        System.String[].
    .EXAMPLE
        Get-WinProxyLoadBalancerKey -LoadBalancer $lb
    #>
    [CmdletBinding()]
    [OutputType([string[]])]
    param(
        [Parameter(Mandatory = $true)]
        [object] $LoadBalancer
    )
    $vips = @($LoadBalancer.Vips)
    if ($vips.Count -eq 0) {
        $vips = @('')
    }
    foreach ($vip in $vips) {
        '{0}|{1}|{2}' -f $LoadBalancer.Protocol, "$vip".ToLowerInvariant(), $LoadBalancer.ExternalPort
    }
}

function Join-WinProxyLoadBalancer {
    <#
    .SYNOPSIS
        Names the owning Service of HNS load balancers by joining them with winproxy's desired load balancers.
    .DESCRIPTION
        HNS objects carry no owner. This matches each HNS load balancer to the desired load balancer (from
        'winproxy plan -o json') with the same protocol, VIP and external port, and copies Service, Port and Kind
        from it. Unmatched load balancers keep Service = $null: winproxy does not want them (stale, or owned by
        another component).
    .PARAMETER HnsLoadBalancer
        WinProxy.LoadBalancer objects made from HNS (Source HnsV1 or HnsV2).
    .PARAMETER DesiredLoadBalancer
        WinProxy.LoadBalancer objects made from the plan's loadBalancers.
    .EXAMPLE
        Join-WinProxyLoadBalancer -HnsLoadBalancer $hns -DesiredLoadBalancer $desired
    #>
    [CmdletBinding()]
    param(
        [object[]] $HnsLoadBalancer = @(),
        [object[]] $DesiredLoadBalancer = @()
    )
    $index = @{}
    foreach ($desired in $DesiredLoadBalancer) {
        foreach ($key in Get-WinProxyLoadBalancerKey -LoadBalancer $desired) {
            $index[$key] = $desired
        }
    }
    foreach ($lb in $HnsLoadBalancer) {
        $match = $null
        foreach ($key in Get-WinProxyLoadBalancerKey -LoadBalancer $lb) {
            if ($index.ContainsKey($key)) {
                $match = $index[$key]
                break
            }
        }
        if ($match) {
            $lb.Service = $match.Service
            $lb.Port = $match.Port
            $lb.Kind = $match.Kind
        }
        $lb
    }
}

function Get-WinProxyLoadBalancer {
    <#
    .SYNOPSIS
        Lists the HNS load balancers of this node, each with the Kubernetes Service port it serves.
    .DESCRIPTION
        With -Source Agent (the default) this runs 'winproxy hns list -o json', which already joins every load
        balancer with its service port. With -Source HnsModule it reads the in-box Get-HnsPolicyList (what
        operators used with upstream kube-proxy) and names the owning Service by joining with
        'winproxy plan -o json' on protocol, VIP and external port. A load balancer with an empty Service is not
        wanted by winproxy: stale, or created by another component.
    .PARAMETER Service
        Only load balancers of this Service ("namespace/name"; wildcards allowed).
    .PARAMETER Vip
        Only load balancers with this frontend VIP.
    .PARAMETER Source
        Agent (default) or HnsModule.
    .PARAMETER AgentArgument
        Extra arguments for 'winproxy plan' with -Source HnsModule (for example '--config', 'C:\k\kube-proxy.yaml').
    .PARAMETER WinProxyPath
        The launcher or distribution folder; see Resolve-WinProxyLauncher.
    .OUTPUTS
        WinProxy.LoadBalancer objects.
    .EXAMPLE
        Get-WinProxyLoadBalancer -Service kube-system/kube-dns
    .EXAMPLE
        Get-WinProxyLoadBalancer -Source HnsModule -AgentArgument '--config', 'C:\k\kube-proxy.yaml' |
            Where-Object { -not $_.Service }
    #>
    [CmdletBinding()]
    param(
        [string] $Service,
        [string] $Vip,
        [ValidateSet('Agent', 'HnsModule')]
        [string] $Source = 'Agent',
        [string[]] $AgentArgument = @(),
        [string] $WinProxyPath
    )
    if ($Source -eq 'Agent') {
        $listing = Invoke-WinProxyJson -Arguments @('hns', 'list') -WinProxyPath $WinProxyPath
        $loadBalancers = @(Get-WinProxyMember -InputObject $listing -Name 'loadBalancers') | Where-Object { $_ } |
            ConvertTo-WinProxyLoadBalancer -Source Agent
    } else {
        if (-not (Get-Command -Name 'Get-HnsPolicyList' -ErrorAction SilentlyContinue)) {
            throw 'Get-HnsPolicyList is not available: install the HostNetworkingService module or use -Source Agent'
        }
        $hns = @(Get-HnsPolicyList) | Where-Object { $_ } | ConvertTo-WinProxyLoadBalancer -Source HnsV1
        $plan = Invoke-WinProxyJson -Arguments (@('plan') + $AgentArgument) -WinProxyPath $WinProxyPath
        $desired = @(Get-WinProxyMember -InputObject $plan -Name 'loadBalancers') | Where-Object { $_ } |
            ConvertTo-WinProxyLoadBalancer -Source Agent
        $loadBalancers = Join-WinProxyLoadBalancer -HnsLoadBalancer $hns -DesiredLoadBalancer $desired
    }
    $loadBalancers | Where-Object {
        (-not $Service -or ($_.Service -and $_.Service -like $Service)) -and
        (-not $Vip -or @($_.Vips) -contains $Vip)
    }
}

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
        offline inputs (--manifests DIR, --hns-state FILE).
    .PARAMETER Operations
        Return only the operations.
    .PARAMETER Warnings
        Return only the warnings.
    .PARAMETER WinProxyPath
        The launcher or distribution folder; see Resolve-WinProxyLauncher.
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
        TCP (default), UDP or SCTP.
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
        [ValidateSet('TCP', 'UDP', 'SCTP')]
        [string] $Protocol = 'TCP',
        [string[]] $AgentArgument = @(),
        [string] $WinProxyPath
    )
    $arguments = @('trace', '--src', $Source, '--dst', $Destination, '--protocol', $Protocol) + $AgentArgument
    Invoke-WinProxyJson -Arguments $arguments -WinProxyPath $WinProxyPath
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
        $response = $_.Exception.Response
        if ($null -eq $response) {
            throw "health endpoint $url not reachable: $($_.Exception.Message)"
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

Export-ModuleMember -Function @(
    'Get-WinProxyLoadBalancer',
    'Get-WinProxyPlan',
    'Trace-WinProxyPacket',
    'Invoke-WinProxyCleanup',
    'Get-WinProxyHealth',
    'Get-WinProxyService',
    'Get-WinProxyDiagnostics',
    'ConvertTo-WinProxyLoadBalancer',
    'Join-WinProxyLoadBalancer'
)
