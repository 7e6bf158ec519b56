@{
    RootModule           = 'WinProxy.psm1'
    ModuleVersion        = '0.1.0'
    GUID                 = '7d1f4c8e-5b2a-4e63-9a0f-3c6e2b8d41a7'
    Author               = 'winproxy maintainers'
    CompanyName          = 'winproxy'
    Copyright            = '(c) winproxy maintainers'
    Description          = 'Troubleshooting for winproxy, the kube-proxy replacement for Windows: HNS load balancers with their Services, plan, packet trace, cleanup, health and diagnostics bundles.'
    PowerShellVersion    = '5.1'
    CompatiblePSEditions = @('Desktop', 'Core')
    FunctionsToExport    = @(
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
    CmdletsToExport      = @()
    VariablesToExport    = @()
    AliasesToExport      = @()
    PrivateData          = @{
        PSData = @{
            Tags = @('kubernetes', 'kube-proxy', 'hns', 'windows', 'networking')
        }
    }
}
