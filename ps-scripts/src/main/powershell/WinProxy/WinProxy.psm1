# WinProxy troubleshooting module.
#
# Wraps the agent's JSON outputs (hns list, plan, trace, cleanup) and the in-box HostNetworkingService cmdlets
# (Get-HnsNetwork, Get-HnsEndpoint, Get-HnsPolicyList) so that operators can answer "which Service does this HNS
# load balancer serve, and is it what winproxy wants?" without grepping logs for IP addresses. Works offline: it
# downloads nothing.

Set-StrictMode -Version 3.0

$script:DefaultServiceNames = @('kube-proxy', 'kubeproxy')

foreach ($part in @('WinProxy.Agent.ps1', 'WinProxy.LoadBalancer.ps1', 'WinProxy.Commands.ps1', 'WinProxy.Diagnostics.ps1')) {
    . (Join-Path -Path $PSScriptRoot -ChildPath $part)
}

Export-ModuleMember -Function @(
    'Get-WinProxyLoadBalancer',
    'Get-WinProxyPlan',
    'Get-WinProxyServiceStatus',
    'Trace-WinProxyPacket',
    'Invoke-WinProxyCleanup',
    'Get-WinProxyHealth',
    'Get-WinProxyService',
    'Get-WinProxyDiagnostics',
    'ConvertTo-WinProxyLoadBalancer',
    'Join-WinProxyLoadBalancer'
)
