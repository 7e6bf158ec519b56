<#
.SYNOPSIS
    Starts winproxy in the HostProcess DaemonSet with this node's HNS network, source VIP and API server address.
.DESCRIPTION
    The DaemonSet (hostprocess\winproxy.yaml) runs this script; it passes its own arguments through to winproxy
    after the flags it computes:

      --hostname-override  NODE_NAME (the pod's spec.nodeName).
      --network-name       WINPROXY_NETWORK_NAME, else KUBE_NETWORK, else the CNI's network as HNS lists it
                           ("winproxy hns list -o json"): the first of Calico, flannel.4096, vxlan0, cbr0 that
                           exists (saying which when several do), else the one Overlay or L2Bridge network. The
                           network node preparation creates to bring up the vSwitch (named External or ext, of type
                           Transparent, or on 192.168.255.0/30) is never guessed: while it is the only one, the
                           script waits for the CNI's, saying why. Several unknown candidates are an error (2).
      --source-vip         on an Overlay network only, this node's own source VIP, the first of:
                           1. WINPROXY_SOURCE_VIP, when set;
                           2. the IP of the host endpoint the CNI creates for it: WINPROXY_SOURCE_VIP_ENDPOINT, else
                              Calico_ep on the Calico network, VIPEndpoint on OVNKubernetesHybridOverlayNetwork
                              (the script waits for it);
                           3. an address reserved for this node with the CNI's host-local IPAM, as the
                              sig-windows-tools flannel kube-proxy start script does: the same request document
                              (host-local, the network's name, its subnet, dataDir /var/lib/cni/networks), the same
                              container ID, and the same cache file C:\sourcevip\sourceVip.json (a CNI 0.2.0
                              result, ip4.ip, as that script reads it; a 0.3.0 result, ips, is read too), so the
                              address stays the same across restarts and a rollback to upstream kube-proxy. This
                              assumes the CNI allocates pod addresses with host-local under that name and dataDir
                              (flannel's Windows overlay does), so that the reservation can never be given to a pod. host-local.exe is taken from CNI_BIN_PATH
                              (default C:\opt\cni\bin).
                           On L2Bridge no source VIP is passed.
      --enable-dsr         true only where the CNI allows hairpin under DSR (a pod calling its own Service through
                           the VIP): a CNI configuration in WINPROXY_CNI_CONF_DIR (default C:\etc\cni\net.d and
                           C:\k\azurecni\netconf) with loopbackDSR/enableLoopbackDSR true, or Calico's or Azure
                           CNI's; WINPROXY_ENABLE_DSR=true/false decides instead, and an --enable-dsr in the args
                           stands. The start line says which and why.

    Before winproxy starts, its state directory (--state-dir when passed, else %ProgramData%\winproxy) is created if
    needed and given an owner and DACL of SYSTEM and Administrators only (protected: nothing inherited), with icacls
    and well-known SIDs: the ownership journal there tells winproxy what it may delete.

    The API server is reached at its real address, not through the "kubernetes" Service ClusterIP, which only
    works once a proxy on this node has programmed it. The address is WINPROXY_APISERVER_HOST and
    WINPROXY_APISERVER_PORT (from the optional winproxy-apiserver ConfigMap), else the server of kubeadm's
    kube-proxy ConfigMap (kubeconfig.conf, mounted at \var\lib\kube-proxy). The script hands it to winproxy as
    KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT, with the pod's service-account token and CA (winproxy.ps1
    finds them under CONTAINER_SANDBOX_MOUNT_POINT).

    Exit codes: winproxy's own once it runs; 2 when a setting above is invalid or missing (one line naming it);
    1 when HNS, the network, the source-VIP endpoint or host-local fails or does not appear in time
    (WINPROXY_START_TIMEOUT_SECONDS, default 300).
.EXAMPLE
    powershell.exe -NoProfile -ExecutionPolicy Bypass -File C:\k\winproxy\hostprocess\start.ps1 --v=2 --enable-dsr=true
#>
$ErrorActionPreference = 'Stop'

# What the sig-windows-tools flannel kube-proxy start script uses, so that a node moving from it keeps its address.
$script:SourceVipContainerId = 'dummy'
$script:HostLocalDataDir = '/var/lib/cni/networks'
# The HNS networks CNIs create for pods, by name, in the order one is chosen when several exist: Calico, flannel
# (VXLAN overlay, and the older vxlan0), and the cbr0 of flannel host-gw and sig-windows-tools' l2bridge.
$script:CniNetworkNames = @('Calico', 'flannel.4096', 'vxlan0', 'cbr0')
# The network node preparation creates only to bring up the vSwitch (sig-windows-tools, microsoft/SDN helper.psm1,
# k3s): never the one pods are on.
$script:VSwitchNetworkNames = @('External', 'ext')
$script:VSwitchNetworkSubnet = '192.168.255.0/30'
# Well-known SIDs (not names, which are localized): LocalSystem and BUILTIN\Administrators.
$script:SystemSid = 'S-1-5-18'
$script:AdministratorsSid = 'S-1-5-32-544'

# Host endpoints that CNIs create to hold the node's source VIP, by HNS network name.
$script:SourceVipEndpoints = @{
    'Calico'                            = 'Calico_ep'
    'OVNKubernetesHybridOverlayNetwork' = 'VIPEndpoint'
}

function Write-WinProxyStartLog {
    <#
    .SYNOPSIS
        Writes one progress line to standard output (the container log).
    .PARAMETER Message
        The line, without the "winproxy start:" prefix.
    #>
    param([Parameter(Mandatory = $true)] [string] $Message)
    [Console]::Out.WriteLine("winproxy start: $Message")
}

function New-WinProxyStartError {
    <#
    .SYNOPSIS
        Returns an exception whose message is the one line printed, and whose Data['ExitCode'] is the exit code.
    .PARAMETER Message
        The line, naming the setting to change.
    .PARAMETER ExitCode
        2 for an invalid or missing setting, 1 for a runtime failure.
    #>
    param(
        [Parameter(Mandatory = $true)] [string] $Message,
        [int] $ExitCode = 1
    )
    $exception = [System.InvalidOperationException]::new("winproxy start: $Message")
    $exception.Data['ExitCode'] = $ExitCode
    return $exception
}

function Test-WinProxyIPv4 {
    <#
    .SYNOPSIS
        True when Value is a dotted-quad IPv4 address.
    .PARAMETER Value
        The text to check.
    #>
    param([string] $Value)
    $address = $null
    return ($Value -match '^\d{1,3}(\.\d{1,3}){3}$') -and [System.Net.IPAddress]::TryParse($Value, [ref] $address)
}

function Test-WinProxyVSwitchNetwork {
    <#
    .SYNOPSIS
        True for the network node preparation creates only to bring up the vSwitch (never the pods' network): named
        External or ext, of type Transparent, or on 192.168.255.0/30.
    .PARAMETER Network
        One entry of the listing's "networks" array (name, type, subnets).
    #>
    param([Parameter(Mandatory = $true)] [object] $Network)
    if ($script:VSwitchNetworkNames -contains [string] $Network.name -or $Network.type -eq 'Transparent') {
        return $true
    }
    return @($Network.subnets) -contains $script:VSwitchNetworkSubnet
}

function Select-WinProxyNetwork {
    <#
    .SYNOPSIS
        Picks the HNS network to program from the networks of "winproxy hns list -o json"; $null while none fits.
    .DESCRIPTION
        With a name: the network of that name (HNS compares names case-insensitively). Without: the first CNI
        network of $script:CniNetworkNames that exists (one line names the others when several do), else the one
        Overlay or L2Bridge network that is not the vSwitch's (Test-WinProxyVSwitchNetwork); several of those is an
        error naming WINPROXY_NETWORK_NAME. The vSwitch's network is never picked without a name.
    .PARAMETER Networks
        The "networks" array of the listing (name, type, subnets).
    .PARAMETER Name
        The configured name, or empty.
    #>
    param(
        [object[]] $Networks,
        [string] $Name
    )
    if ($Name) {
        return @($Networks | Where-Object { $_.name -eq $Name }) | Select-Object -First 1
    }
    $known = @()
    foreach ($cniName in $script:CniNetworkNames) {
        $known += @($Networks | Where-Object { $_.name -eq $cniName })
    }
    if ($known.Count -gt 0) {
        if ($known.Count -gt 1) {
            $names = ($known | ForEach-Object { $_.name }) -join ', '
            Write-WinProxyStartLog "HNS has several CNI networks ($names): using $($known[0].name), the first in the order Calico, flannel.4096, vxlan0, cbr0; set WINPROXY_NETWORK_NAME to choose another"
        }
        return $known[0]
    }
    $candidates = @($Networks | Where-Object { ($_.type -eq 'Overlay' -or $_.type -eq 'L2Bridge') -and -not (Test-WinProxyVSwitchNetwork $_) })
    if ($candidates.Count -gt 1) {
        $names = ($candidates | ForEach-Object { $_.name }) -join ', '
        throw (New-WinProxyStartError -ExitCode 2 -Message "WINPROXY_NETWORK_NAME: HNS has several Overlay/L2Bridge networks ($names) and none has a known CNI name; set WINPROXY_NETWORK_NAME to the one the CNI uses for pods")
    }
    return $candidates | Select-Object -First 1
}

function Get-WinProxyNetworkWaitReason {
    <#
    .SYNOPSIS
        Why Select-WinProxyNetwork found no network in this listing, in one line (for the log while waiting).
    .PARAMETER Networks
        The "networks" array of the listing.
    .PARAMETER Name
        The configured name, or empty.
    #>
    param(
        [object[]] $Networks,
        [string] $Name
    )
    $present = @($Networks | ForEach-Object { "$($_.name) ($($_.type))" })
    $has = if ($present.Count -gt 0) { 'HNS has only ' + ($present -join ', ') } else { 'HNS has no network yet' }
    if ($Name) {
        return "waiting for HNS network $Name (WINPROXY_NETWORK_NAME or KUBE_NETWORK): $has"
    }
    $vswitch = @($Networks | Where-Object { Test-WinProxyVSwitchNetwork $_ })
    if ($vswitch.Count -gt 0) {
        return "waiting for the CNI's network: $has; $($vswitch[0].name) is the network node preparation creates for the vSwitch, never the pods' network (set WINPROXY_NETWORK_NAME to name the CNI's network)"
    }
    return "waiting for the CNI's network (Calico, flannel.4096, vxlan0, cbr0, or one Overlay/L2Bridge network): $has"
}

function Get-WinProxySourceVipEndpointName {
    <#
    .SYNOPSIS
        The name of the host endpoint whose IP is the source VIP on this network, or $null (then host-local IPAM).
    .PARAMETER NetworkName
        The HNS network's name.
    .PARAMETER Configured
        WINPROXY_SOURCE_VIP_ENDPOINT, or empty.
    #>
    param(
        [string] $NetworkName,
        [string] $Configured
    )
    if ($Configured) {
        return $Configured
    }
    foreach ($known in $script:SourceVipEndpoints.Keys) {
        if ($known -eq $NetworkName) {
            return $script:SourceVipEndpoints[$known]
        }
    }
    return $null
}

function New-WinProxyIpamRequest {
    <#
    .SYNOPSIS
        The host-local IPAM request that reserves the source VIP (the sig-windows-tools flannel document).
    .PARAMETER NetworkName
        The CNI network name; host-local keeps its reservations in dataDir\NetworkName.
    .PARAMETER Subnet
        The subnet to take the address from (the HNS network's, i.e. this node's pod subnet).
    #>
    param(
        [Parameter(Mandatory = $true)] [string] $NetworkName,
        [Parameter(Mandatory = $true)] [string] $Subnet
    )
    return @"
{"cniVersion": "0.2.0", "name": "$NetworkName", "ipam":{"type":"host-local","ranges":[[{"subnet":"$Subnet"}]],"dataDir":"$script:HostLocalDataDir"}}
"@.Trim()
}

function Get-WinProxyIpamAddress {
    <#
    .SYNOPSIS
        The IPv4 address of a CNI result without its prefix length, or $null. Both shapes are read: CNI 0.2.0
        (ip4.ip, what host-local prints for the 0.2.0 request and what the sig-windows-tools flannel script reads)
        and 0.3.0 and later (the first IPv4 address of ips, which need not be ips[0]).
    .PARAMETER Result
        The CNI result document host-local printed, or the cache file's content.
    #>
    param([string] $Result)
    try {
        $document = $Result | ConvertFrom-Json
    } catch {
        return $null
    }
    if ($null -eq $document) {
        return $null
    }
    $candidates = @()
    if ($document.PSObject.Properties['ip4'] -and $document.ip4 -and $document.ip4.PSObject.Properties['ip']) {
        $candidates += [string] $document.ip4.ip
    }
    if ($document.PSObject.Properties['ips']) {
        foreach ($ip in @($document.ips)) {
            if ($ip -and $ip.PSObject.Properties['address']) {
                $candidates += [string] $ip.address
            }
        }
    }
    foreach ($candidate in $candidates) {
        $address = $candidate.Split('/')[0]
        if (Test-WinProxyIPv4 $address) {
            return $address
        }
    }
    return $null
}

function ConvertTo-WinProxySourceVipCache {
    <#
    .SYNOPSIS
        The content of sourceVip.json for a host-local result, in the CNI 0.2.0 shape (ip4.ip) that the
        sig-windows-tools flannel kube-proxy start script reads, so that a rollback to upstream kube-proxy finds it.
    .DESCRIPTION
        A result that has ip4.ip already (host-local answering the 0.2.0 request) is kept as it is. A 0.3.0 or later
        result (ips) is rewritten as {"cniVersion":"0.2.0","ip4":{"ip":ADDRESS/PREFIX[,"gateway":GATEWAY]}} from its
        first IPv4 entry.
    .PARAMETER Result
        The CNI result document host-local printed.
    .PARAMETER Address
        Its IPv4 address (Get-WinProxyIpamAddress).
    #>
    param(
        [Parameter(Mandatory = $true)] [string] $Result,
        [Parameter(Mandatory = $true)] [string] $Address
    )
    $document = $Result | ConvertFrom-Json
    if ($document.PSObject.Properties['ip4'] -and $document.ip4 -and $document.ip4.PSObject.Properties['ip']) {
        return $Result
    }
    $entry = @($document.ips | Where-Object { $_ -and ([string] $_.address).Split('/')[0] -eq $Address }) | Select-Object -First 1
    $ip4 = [ordered] @{ ip = [string] $entry.address }
    if ($entry.PSObject.Properties['gateway'] -and $entry.gateway) {
        $ip4['gateway'] = [string] $entry.gateway
    }
    return ([ordered] @{ cniVersion = '0.2.0'; ip4 = $ip4 } | ConvertTo-Json -Compress)
}

function Get-WinProxyDsrDecision {
    <#
    .SYNOPSIS
        Whether to pass --enable-dsr=true, and why, in one line: DSR only where the CNI lets a pod reach its own
        Service through the VIP (hairpin under DSR), otherwise such a call gets no answer.
    .DESCRIPTION
        In this order:
          1. an --enable-dsr flag among the DaemonSet's args: it stands, nothing is added;
          2. WINPROXY_ENABLE_DSR = true or false;
          3. the CNI configuration files (*.conf, *.conflist, *.json): DSR on when one sets "loopbackDSR": true
             (flannel's and sdnbridge/sdnoverlay's option) or "enableLoopbackDSR": true (Azure CNI), or is the
             configuration of Calico (plugin type calico) or Azure CNI (plugin type azure-vnet), which program
             loopback DSR themselves; otherwise off.
        Returns an object with Flag (the argument to add, or $null) and Reason (for the start line).
    .PARAMETER PassThrough
        The DaemonSet's args.
    .PARAMETER Setting
        WINPROXY_ENABLE_DSR: true, false or empty (decide from the CNI configuration).
    .PARAMETER ConfigFiles
        The CNI configuration files, objects with Name and Text.
    #>
    param(
        [string[]] $PassThrough,
        [string] $Setting,
        [object[]] $ConfigFiles
    )
    $given = @($PassThrough | Where-Object { $_ -match '^--enable-dsr(=|$)' })
    if ($given.Count -gt 0) {
        return [pscustomobject] @{ Flag = $null; Reason = "as the DaemonSet's args say ($($given[-1]))" }
    }
    if ($Setting) {
        if ($Setting -notmatch '^(true|false)$') {
            throw (New-WinProxyStartError -ExitCode 2 -Message "WINPROXY_ENABLE_DSR: not true, false or empty: '$Setting'")
        }
        $on = $Setting -eq 'true'
        return [pscustomobject] @{ Flag = "--enable-dsr=$($Setting.ToLowerInvariant())"; Reason = "$(if ($on) { 'on' } else { 'off' }) (WINPROXY_ENABLE_DSR=$Setting)" }
    }
    $rules = @(
        @{ Pattern = '"loopbackDSR"\s*:\s*true'; Why = 'sets loopbackDSR: true' },
        @{ Pattern = '"enableLoopbackDSR"\s*:\s*true'; Why = 'sets enableLoopbackDSR: true' },
        @{ Pattern = '"type"\s*:\s*"calico"'; Why = "is Calico's, which allows hairpin under DSR" },
        @{ Pattern = '"type"\s*:\s*"azure-vnet"'; Why = "is Azure CNI's, which allows hairpin under DSR" }
    )
    foreach ($file in @($ConfigFiles)) {
        foreach ($rule in $rules) {
            if ([string] $file.Text -match $rule.Pattern) {
                return [pscustomobject] @{ Flag = '--enable-dsr=true'; Reason = "on: the CNI configuration $($file.Name) $($rule.Why)" }
            }
        }
    }
    $names = @($ConfigFiles | ForEach-Object { $_.Name })
    $read = if ($names.Count -gt 0) { 'none of ' + ($names -join ', ') } else { 'no CNI configuration was found, and none' }
    return [pscustomobject] @{ Flag = $null; Reason = "off: $read allows hairpin under DSR (loopbackDSR: true, or Calico or Azure CNI), and with DSR a pod calling its own Service through the VIP would get no answer; set WINPROXY_ENABLE_DSR=true to turn it on anyway" }
}

function Get-WinProxyCniConfigFiles {
    <#
    .SYNOPSIS
        The CNI configuration files of this node (*.conf, *.conflist, *.json), as objects with Name and Text.
    .PARAMETER Directories
        Where to look: WINPROXY_CNI_CONF_DIR, else C:\etc\cni\net.d (flannel, Calico) and
        C:\k\azurecni\netconf (Azure CNI).
    #>
    param([string[]] $Directories)
    $files = @()
    foreach ($directory in $Directories) {
        if (-not (Test-Path -LiteralPath $directory -PathType Container)) {
            continue
        }
        foreach ($file in Get-ChildItem -LiteralPath $directory -File | Where-Object { $_.Extension -in '.conf', '.conflist', '.json' } | Sort-Object Name) {
            $files += [pscustomobject] @{ Name = $file.FullName; Text = (Get-Content -LiteralPath $file.FullName -Raw) }
        }
    }
    return $files
}

function Get-WinProxyApiServer {
    <#
    .SYNOPSIS
        Host and port of the API server from a kubeconfig's text (its first cluster's server), or $null.
    .PARAMETER Kubeconfig
        The kubeconfig, e.g. kubeadm's kube-proxy ConfigMap key kubeconfig.conf.
    #>
    param([string] $Kubeconfig)
    if ($Kubeconfig -notmatch '(?m)^\s*server:\s*["'']?(https?://[^\s"'']+)') {
        return $null
    }
    $uri = $null
    if (-not [System.Uri]::TryCreate($Matches[1], [System.UriKind]::Absolute, [ref] $uri)) {
        return $null
    }
    return [pscustomobject] @{ Host = $uri.DnsSafeHost; Port = [string] $uri.Port }
}

function Get-WinProxyHns {
    <#
    .SYNOPSIS
        Networks and endpoints as winproxy sees them ("winproxy hns list -o json" on the real HNS).
    .PARAMETER Launcher
        winproxy.ps1 of the distribution.
    #>
    param([Parameter(Mandatory = $true)] [string] $Launcher)
    $output = & $Launcher hns list -o json
    if ($LASTEXITCODE -ne 0) {
        throw (New-WinProxyStartError -Message "cannot read HNS: 'winproxy hns list' exited with $LASTEXITCODE (its error is above)")
    }
    return ($output -join "`n") | ConvertFrom-Json
}

function Wait-WinProxyCondition {
    <#
    .SYNOPSIS
        Calls Probe until it returns something, every 5 seconds, and returns that; throws after TimeoutSeconds.
    .PARAMETER What
        What is waited for, for the log and the error.
    .PARAMETER Probe
        Returns $null while the condition does not hold.
    .PARAMETER TimeoutSeconds
        How long to wait.
    #>
    param(
        [Parameter(Mandatory = $true)] [string] $What,
        [Parameter(Mandatory = $true)] [scriptblock] $Probe,
        [int] $TimeoutSeconds
    )
    $deadline = (Get-Date).AddSeconds($TimeoutSeconds)
    $logged = $false
    while ($true) {
        $found = & $Probe
        if ($null -ne $found) {
            return $found
        }
        if ((Get-Date) -ge $deadline) {
            throw (New-WinProxyStartError -Message "$What did not appear within $TimeoutSeconds s (WINPROXY_START_TIMEOUT_SECONDS)")
        }
        if (-not $logged) {
            Write-WinProxyStartLog "waiting for $What"
            $logged = $true
        }
        Start-Sleep -Seconds 5
    }
}

function Get-WinProxyReservedSourceVip {
    <#
    .SYNOPSIS
        The source VIP host-local already reserved for this node, or $null: from the cache file, else from
        host-local's own record (dataDir\network\IP, whose first line is the container ID), if the cache was lost.
    .PARAMETER CacheFile
        The CNI result saved when the address was reserved.
    .PARAMETER NetworkName
        The CNI network name.
    #>
    param(
        [Parameter(Mandatory = $true)] [string] $CacheFile,
        [Parameter(Mandatory = $true)] [string] $NetworkName
    )
    if (Test-Path -LiteralPath $CacheFile -PathType Leaf) {
        $address = Get-WinProxyIpamAddress (Get-Content -LiteralPath $CacheFile -Raw)
        if ($address) {
            return $address
        }
        Write-WinProxyStartLog "ignoring $CacheFile`: it holds no CNI result with an IPv4 address"
    }
    $records = Join-Path -Path $env:SystemDrive -ChildPath (Join-Path -Path $script:HostLocalDataDir -ChildPath $NetworkName)
    if (Test-Path -LiteralPath $records -PathType Container) {
        foreach ($record in Get-ChildItem -LiteralPath $records -File) {
            $firstLine = Get-Content -LiteralPath $record.FullName -TotalCount 1
            if ((Test-WinProxyIPv4 $record.Name) -and "$firstLine".Trim() -eq $script:SourceVipContainerId) {
                return $record.Name
            }
        }
    }
    return $null
}

function Invoke-WinProxyHostLocal {
    <#
    .SYNOPSIS
        Reserves the source VIP with host-local IPAM (CNI ADD), saves the result to CacheFile, returns the address.
    .PARAMETER BinDir
        The CNI bin directory holding host-local.exe.
    .PARAMETER Request
        The IPAM request document (New-WinProxyIpamRequest).
    .PARAMETER CacheFile
        Where the CNI result is kept, so the next start reuses the address.
    #>
    param(
        [Parameter(Mandatory = $true)] [string] $BinDir,
        [Parameter(Mandatory = $true)] [string] $Request,
        [Parameter(Mandatory = $true)] [string] $CacheFile
    )
    $hostLocal = Join-Path -Path $BinDir -ChildPath 'host-local.exe'
    if (-not (Test-Path -LiteralPath $hostLocal -PathType Leaf)) {
        throw (New-WinProxyStartError -ExitCode 2 -Message "WINPROXY_SOURCE_VIP: not set, and no $hostLocal to reserve one with (set CNI_BIN_PATH to the CNI bin directory, or WINPROXY_SOURCE_VIP)")
    }
    Write-WinProxyStartLog "reserving the source VIP with $hostLocal`: $Request"
    $cni = @{ CNI_COMMAND = 'ADD'; CNI_CONTAINERID = $script:SourceVipContainerId; CNI_NETNS = 'dummy';
        CNI_IFNAME = 'dummy'; CNI_PATH = $BinDir }
    foreach ($name in $cni.Keys) {
        Set-Item -Path "env:$name" -Value $cni[$name]
    }
    try {
        $result = ($Request | & $hostLocal) -join "`n"
        $exitCode = $LASTEXITCODE
    } finally {
        foreach ($name in $cni.Keys) {
            Remove-Item -Path "env:$name" -ErrorAction SilentlyContinue
        }
    }
    $address = Get-WinProxyIpamAddress $result
    if ($exitCode -ne 0 -or -not $address) {
        throw (New-WinProxyStartError -Message "host-local did not reserve a source VIP (exit code $exitCode): $result")
    }
    # Only a successful result is kept: a cached error would stop every later start. In the 0.2.0 shape, which
    # the sig-windows-tools flannel kube-proxy script reads, so that a rollback to upstream kube-proxy works.
    New-Item -ItemType Directory -Path (Split-Path -Parent $CacheFile) -Force | Out-Null
    Set-Content -LiteralPath $CacheFile -Value (ConvertTo-WinProxySourceVipCache -Result $result -Address $address) -Encoding ASCII
    return $address
}

function Resolve-WinProxySourceVip {
    <#
    .SYNOPSIS
        This node's source VIP on an Overlay network (see the script's description for the order).
    .PARAMETER Launcher
        winproxy.ps1, to list HNS endpoints.
    .PARAMETER Network
        The network chosen by Select-WinProxyNetwork.
    .PARAMETER TimeoutSeconds
        How long to wait for a source-VIP endpoint.
    #>
    param(
        [Parameter(Mandatory = $true)] [string] $Launcher,
        [Parameter(Mandatory = $true)] [object] $Network,
        [int] $TimeoutSeconds
    )
    if ($env:WINPROXY_SOURCE_VIP) {
        if (-not (Test-WinProxyIPv4 $env:WINPROXY_SOURCE_VIP)) {
            throw (New-WinProxyStartError -ExitCode 2 -Message "WINPROXY_SOURCE_VIP: not an IPv4 address: '$env:WINPROXY_SOURCE_VIP'")
        }
        Write-WinProxyStartLog "source VIP $env:WINPROXY_SOURCE_VIP from WINPROXY_SOURCE_VIP"
        return $env:WINPROXY_SOURCE_VIP
    }
    $endpointName = Get-WinProxySourceVipEndpointName -NetworkName $Network.name -Configured $env:WINPROXY_SOURCE_VIP_ENDPOINT
    if ($endpointName) {
        $address = Wait-WinProxyCondition -What "HNS endpoint $endpointName (the source VIP the CNI creates)" -TimeoutSeconds $TimeoutSeconds -Probe {
            $hns = Get-WinProxyHns -Launcher $Launcher
            $endpoint = @($hns.endpoints | Where-Object { $_.name -eq $endpointName -and (Test-WinProxyIPv4 $_.ip) }) | Select-Object -First 1
            if ($endpoint) { $endpoint.ip } else { $null }
        }
        Write-WinProxyStartLog "source VIP $address from HNS endpoint $endpointName"
        return $address
    }
    $subnets = @($Network.subnets)
    if ($subnets.Count -eq 0 -or -not $subnets[0]) {
        throw (New-WinProxyStartError -ExitCode 2 -Message "WINPROXY_SOURCE_VIP: not set, and HNS network $($Network.name) has no subnet to reserve one from")
    }
    $cacheFile = if ($env:WINPROXY_SOURCE_VIP_FILE) { $env:WINPROXY_SOURCE_VIP_FILE } else { 'C:\sourcevip\sourceVip.json' }
    $address = Get-WinProxyReservedSourceVip -CacheFile $cacheFile -NetworkName $Network.name
    if ($address) {
        Write-WinProxyStartLog "source VIP $address, reserved earlier with host-local ($cacheFile)"
        return $address
    }
    $binDir = if ($env:CNI_BIN_PATH) { $env:CNI_BIN_PATH } else { 'C:\opt\cni\bin' }
    $request = New-WinProxyIpamRequest -NetworkName $Network.name -Subnet $subnets[0]
    $address = Invoke-WinProxyHostLocal -BinDir $binDir -Request $request -CacheFile $cacheFile
    Write-WinProxyStartLog "source VIP $address, reserved with host-local (saved in $cacheFile)"
    return $address
}

function Resolve-WinProxyApiServer {
    <#
    .SYNOPSIS
        The API server's real host and port: WINPROXY_APISERVER_HOST/PORT, else kubeadm's kube-proxy kubeconfig.
    .PARAMETER KubeadmKubeconfig
        Where kubeadm's kube-proxy ConfigMap key kubeconfig.conf is mounted.
    #>
    param([Parameter(Mandatory = $true)] [string] $KubeadmKubeconfig)
    if ($env:WINPROXY_APISERVER_HOST) {
        $port = if ($env:WINPROXY_APISERVER_PORT) { $env:WINPROXY_APISERVER_PORT } else { '443' }
        if ($port -notmatch '^\d{1,5}$' -or [int] $port -lt 1 -or [int] $port -gt 65535) {
            throw (New-WinProxyStartError -ExitCode 2 -Message "WINPROXY_APISERVER_PORT: not a port number: '$port'")
        }
        return [pscustomobject] @{ Host = $env:WINPROXY_APISERVER_HOST; Port = $port; Source = 'WINPROXY_APISERVER_HOST' }
    }
    if (Test-Path -LiteralPath $KubeadmKubeconfig -PathType Leaf) {
        $server = Get-WinProxyApiServer (Get-Content -LiteralPath $KubeadmKubeconfig -Raw)
        if (-not $server) {
            throw (New-WinProxyStartError -ExitCode 2 -Message "WINPROXY_APISERVER_HOST: not set, and $KubeadmKubeconfig names no https:// server")
        }
        return [pscustomobject] @{ Host = $server.Host; Port = $server.Port; Source = "kubeadm's kube-proxy ConfigMap" }
    }
    throw (New-WinProxyStartError -ExitCode 2 -Message "WINPROXY_APISERVER_HOST: the API server address is unknown: create ConfigMap kube-system/winproxy-apiserver with KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT (see docs/operations.md), or run on a kubeadm cluster (ConfigMap kube-system/kube-proxy)")
}

function Get-WinProxyStateDirectory {
    <#
    .SYNOPSIS
        The state directory winproxy will use: the value of a --state-dir argument, else %ProgramData%\winproxy.
    .PARAMETER PassThrough
        The arguments given to winproxy.
    .PARAMETER ProgramData
        The ProgramData directory.
    #>
    param(
        [string[]] $PassThrough,
        [Parameter(Mandatory = $true)] [string] $ProgramData
    )
    $arguments = @($PassThrough)
    for ($i = 0; $i -lt $arguments.Count; $i++) {
        if ($arguments[$i] -like '--state-dir=*') {
            return $arguments[$i].Substring('--state-dir='.Length)
        }
        if ($arguments[$i] -eq '--state-dir' -and $i + 1 -lt $arguments.Count) {
            return $arguments[$i + 1]
        }
    }
    return Join-Path -Path $ProgramData -ChildPath 'winproxy'
}

function Protect-WinProxyStateDirectory {
    <#
    .SYNOPSIS
        Creates the state directory if needed and leaves it owned by Administrators with a protected DACL of
        SYSTEM and Administrators (full control, inherited by files and subdirectories) and nothing else.
    .DESCRIPTION
        Uses icacls with SIDs, not account names (which are localized). Access entries of other accounts that
        were set on the directory itself are removed; entries inherited from the parent are dropped.
    .PARAMETER Path
        The state directory.
    #>
    param([Parameter(Mandatory = $true)] [string] $Path)
    New-Item -ItemType Directory -Path $Path -Force | Out-Null
    $keep = @($script:SystemSid, $script:AdministratorsSid)
    $explicit = (Get-Acl -LiteralPath $Path).GetAccessRules($true, $false, [System.Security.Principal.SecurityIdentifier])
    $others = @($explicit | ForEach-Object { $_.IdentityReference.Value } | Where-Object { $keep -notcontains $_ } | Select-Object -Unique)
    $steps = [System.Collections.Generic.List[object]]::new()
    $steps.Add(@('/setowner', "*$script:AdministratorsSid"))
    $steps.Add(@('/inheritance:r', '/grant:r', "*$script:SystemSid`:(OI)(CI)F", "*$script:AdministratorsSid`:(OI)(CI)F"))
    foreach ($sid in $others) {
        $steps.Add(@('/remove', "*$sid"))
    }
    foreach ($step in $steps) {
        $output = & icacls.exe $Path @step 2>&1
        if ($LASTEXITCODE -ne 0) {
            throw (New-WinProxyStartError -Message "cannot restrict the state directory $Path to SYSTEM and Administrators: icacls $($step -join ' ') exited with $LASTEXITCODE`: $output")
        }
    }
    Write-WinProxyStartLog "state directory $Path`: owner Administrators, access SYSTEM and Administrators only"
}

function Start-WinProxy {
    <#
    .SYNOPSIS
        Works out the node's flags and API server address, then runs winproxy; returns its exit code.
    .PARAMETER PassThrough
        The script's arguments, given to winproxy after the computed flags.
    #>
    param([string[]] $PassThrough)
    $distribution = Split-Path -Parent $PSScriptRoot
    $launcher = Join-Path -Path $distribution -ChildPath 'winproxy.ps1'
    $sandbox = if ($env:CONTAINER_SANDBOX_MOUNT_POINT) { $env:CONTAINER_SANDBOX_MOUNT_POINT } else { $env:SystemDrive + '\' }
    $timeout = 300
    if ($env:WINPROXY_START_TIMEOUT_SECONDS) {
        if ($env:WINPROXY_START_TIMEOUT_SECONDS -notmatch '^\d+$') {
            throw (New-WinProxyStartError -ExitCode 2 -Message "WINPROXY_START_TIMEOUT_SECONDS: not a number of seconds: '$env:WINPROXY_START_TIMEOUT_SECONDS'")
        }
        $timeout = [int] $env:WINPROXY_START_TIMEOUT_SECONDS
    }
    if (-not $env:NODE_NAME) {
        throw (New-WinProxyStartError -ExitCode 2 -Message "NODE_NAME: not set (the DaemonSet sets it from spec.nodeName)")
    }

    $apiServer = Resolve-WinProxyApiServer -KubeadmKubeconfig (Join-Path -Path $sandbox -ChildPath 'var\lib\kube-proxy\kubeconfig.conf')
    Write-WinProxyStartLog "API server $($apiServer.Host):$($apiServer.Port) (from $($apiServer.Source))"

    $networkName = if ($env:WINPROXY_NETWORK_NAME) { $env:WINPROXY_NETWORK_NAME } else { $env:KUBE_NETWORK }
    $what = if ($networkName) { "HNS network $networkName" } else { "the CNI's HNS network" }
    # The reason for waiting is logged whenever it changes (e.g. "only External exists"), not every 5 s.
    $waiting = @{ Reason = $null }
    $network = Wait-WinProxyCondition -What $what -TimeoutSeconds $timeout -Probe {
        $networks = @((Get-WinProxyHns -Launcher $launcher).networks)
        $found = Select-WinProxyNetwork -Networks $networks -Name $networkName
        if ($null -eq $found) {
            $reason = Get-WinProxyNetworkWaitReason -Networks $networks -Name $networkName
            if ($reason -ne $waiting.Reason) {
                Write-WinProxyStartLog $reason
                $waiting.Reason = $reason
            }
        }
        $found
    }
    Write-WinProxyStartLog "HNS network $($network.name), type $($network.type)"

    $flags = @("--hostname-override=$env:NODE_NAME", "--network-name=$($network.name)")
    if ($network.type -eq 'Overlay') {
        $sourceVip = Resolve-WinProxySourceVip -Launcher $launcher -Network $network -TimeoutSeconds $timeout
        $flags += "--source-vip=$sourceVip"
    } elseif ($network.type -ne 'L2Bridge') {
        throw (New-WinProxyStartError -ExitCode 2 -Message "WINPROXY_NETWORK_NAME: HNS network $($network.name) is of type $($network.type); winproxy programs Overlay and L2Bridge networks")
    }

    $cniDirectories = if ($env:WINPROXY_CNI_CONF_DIR) { @($env:WINPROXY_CNI_CONF_DIR) } else { @('C:\etc\cni\net.d', 'C:\k\azurecni\netconf') }
    $dsr = Get-WinProxyDsrDecision -PassThrough $PassThrough -Setting $env:WINPROXY_ENABLE_DSR -ConfigFiles (Get-WinProxyCniConfigFiles -Directories $cniDirectories)
    Write-WinProxyStartLog "DSR $($dsr.Reason)"
    if ($dsr.Flag) {
        $flags += $dsr.Flag
    }

    $programData = if ($env:ProgramData) { $env:ProgramData } else { 'C:\ProgramData' }
    Protect-WinProxyStateDirectory -Path (Get-WinProxyStateDirectory -PassThrough $PassThrough -ProgramData $programData)

    # fabric8 builds its in-cluster configuration from these two, with the token and CA winproxy.ps1 points it at.
    $env:KUBERNETES_SERVICE_HOST = $apiServer.Host
    $env:KUBERNETES_SERVICE_PORT = $apiServer.Port
    $all = @($flags) + @($PassThrough)
    Write-WinProxyStartLog "running winproxy $($all -join ' ')"
    # Out-Host streams winproxy's standard output to the container log line by line; without it the lines would
    # become this function's return value.
    & $launcher @all | Out-Host
    return $LASTEXITCODE
}

# Dot-sourcing (". .\start.ps1") only defines the functions, for tests; running the script starts winproxy.
if ($MyInvocation.InvocationName -ne '.') {
    try {
        $exitCode = Start-WinProxy -PassThrough $args
    } catch {
        [Console]::Error.WriteLine($_.Exception.Message)
        $code = $_.Exception.Data['ExitCode']
        exit $(if ($code) { $code } else { 1 })
    }
    exit $exitCode
}
