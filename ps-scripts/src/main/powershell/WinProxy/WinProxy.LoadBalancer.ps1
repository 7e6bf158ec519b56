# Load balancers from the agent, HCN v2 and HNS v1 views, normalized and joined with their Services.
# Dot-sourced by WinProxy.psm1; not a module of its own.

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

# Get-HnsPolicyList has two shapes. The in-box HostNetworkingService module (and microsoft/SDN's hns.psm1) returns
# the HNS v1 policy list: ID, Policies (one of Type ELB with Protocol, InternalPort, ExternalPort, VIPs, SourceVIP,
# ILB, IsDSR) and References ("/endpoints/<id>"). microsoft/SDN's hns.v2.psm1, which collectlogs.ps1 imports,
# defines its own Get-HnsPolicyList that returns HCN v2 load balancers: ID, HostComputeEndpoints, SourceVIP,
# FrontendVIPs, PortMappings (Protocol, InternalPort, ExternalPort, Flags) and Flags. A property of either list marks
# its shape; the v2 markers are looked at first because a v2 document never has Policies.
$script:HnsV2Markers = @('PortMappings', 'FrontendVIPs', 'HostComputeEndpoints')
$script:HnsV1Markers = @('Policies', 'References')

function Get-WinProxyHnsSchema {
    <#
    .SYNOPSIS
        Tells whether an object from Get-HnsPolicyList is an HNS v1 policy list or an HCN v2 load balancer.
    .DESCRIPTION
        Returns HnsV2 when the object has one of the v2 properties (PortMappings, FrontendVIPs,
        HostComputeEndpoints), else HnsV1 when it has Policies or References, else $null.
    .PARAMETER InputObject
        One object from Get-HnsPolicyList (either module) or Get-HnsLoadBalancer.
    .OUTPUTS
        System.String.
    .EXAMPLE
        Get-HnsPolicyList | ForEach-Object { Get-WinProxyHnsSchema -InputObject $_ }
    #>
    [CmdletBinding()]
    [OutputType([string])]
    param(
        [Parameter(Mandatory = $true)]
        [AllowNull()]
        [object] $InputObject
    )
    if ($null -eq $InputObject) {
        return $null
    }
    foreach ($marker in $script:HnsV2Markers) {
        if ($InputObject.PSObject.Properties[$marker]) {
            return 'HnsV2'
        }
    }
    foreach ($marker in $script:HnsV1Markers) {
        if ($InputObject.PSObject.Properties[$marker]) {
            return 'HnsV1'
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
        it), Port (the service port name; the "namespace/name:port" labels of "hns list" are split), Kind,
        Protocol, Vips, ExternalPort, InternalPort, Backends, SourceVip, Dsr and Source (where the data came from).
    .PARAMETER InputObject
        The load balancer object.
    .PARAMETER Source
        Where it came from: Agent, HnsV1, HnsV2, or HnsModule for whatever Get-HnsPolicyList returned (v1 from the
        in-box module, v2 when microsoft/SDN's hns.v2.psm1 is loaded; see Get-WinProxyHnsSchema).
    .EXAMPLE
        Get-HnsPolicyList | ConvertTo-WinProxyLoadBalancer -Source HnsModule
    #>
    [CmdletBinding()]
    param(
        [Parameter(Mandatory = $true, ValueFromPipeline = $true)]
        [object] $InputObject,
        [ValidateSet('Agent', 'HnsV1', 'HnsV2', 'HnsModule')]
        [string] $Source = 'Agent'
    )
    process {
        $lb = $InputObject
        # Per object: with -Source HnsModule each object's own shape (a listing may mix v1 and v2) decides, and the
        # parameter itself is never overwritten, or the first object's shape would be taken for all that follow.
        $shape = $Source
        if ($Source -eq 'HnsModule') {
            $shape = Get-WinProxyHnsSchema -InputObject $lb
            if (-not $shape) {
                throw "not an HNS load balancer: an object from Get-HnsPolicyList has neither Policies (HNS v1) nor PortMappings (HCN v2)"
            }
        }
        $policy = $lb
        $mapping = $null
        if ($shape -eq 'HnsV1') {
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
        if ($null -eq $dsr -and $shape -eq 'HnsV2' -and $null -ne $flags) {
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
        # 'hns list' labels a load balancer "namespace/name:port"; 'plan' has separate service and port members.
        $service = Get-WinProxyMember -InputObject $lb -Name 'service'
        $port = Get-WinProxyMember -InputObject $lb -Name 'port', 'portName'
        if ($service -and $null -eq $port -and "$service" -match '^(?<service>[^:]+):(?<port>[^:]*)$') {
            $service = $Matches['service']
            $port = $Matches['port']
        }
        $result = [pscustomobject]@{
            PSTypeName   = 'WinProxy.LoadBalancer'
            Id           = Get-WinProxyMember -InputObject $lb -Name 'id'
            Service      = $service
            Port         = $port
            Kind         = Get-WinProxyMember -InputObject $lb -Name 'kind'
            Protocol     = ConvertTo-WinProxyProtocolName -Protocol $protocol
            Vips         = @($vips | Where-Object { $_ })
            ExternalPort = $external
            InternalPort = $internal
            Backends     = $backends
            SourceVip    = $sourceVip
            Dsr          = [bool]$dsr
            Source       = $shape
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
        # v1 objects from the in-box module, v2 objects when hns.v2.psm1 is loaded (as collectlogs.ps1 does).
        $hns = @(Get-HnsPolicyList) | Where-Object { $_ } | ConvertTo-WinProxyLoadBalancer -Source HnsModule
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
