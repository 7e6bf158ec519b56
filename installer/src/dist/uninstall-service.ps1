#Requires -Version 5.1
<#
.SYNOPSIS
    Stops and removes the winproxy Windows service.
.DESCRIPTION
    Leaves the HNS load balancers in place, so that Services keep working until the next proxy adopts them. To
    remove what winproxy created, run "winproxy.cmd cleanup" (or Invoke-WinProxyCleanup) after this script.
.PARAMETER ServiceName
    The service name: kube-proxy (default) or kubeproxy.
.EXAMPLE
    .\uninstall-service.ps1 -ServiceName kubeproxy
#>
[CmdletBinding(SupportsShouldProcess = $true)]
param(
    [ValidateNotNullOrEmpty()]
    [string] $ServiceName = 'kube-proxy'
)
$ErrorActionPreference = 'Stop'

$service = Get-Service -Name $ServiceName -ErrorAction SilentlyContinue
if (-not $service) {
    Write-Output "no service named $ServiceName is installed"
    return
}
if ($PSCmdlet.ShouldProcess($ServiceName, 'stop and delete the service')) {
    if ($service.Status -ne 'Stopped') {
        Stop-Service -Name $ServiceName -Force
        $service.WaitForStatus('Stopped', [TimeSpan]::FromSeconds(60))
    }
    $output = & sc.exe delete $ServiceName 2>&1 | Out-String
    if ($LASTEXITCODE -ne 0) {
        throw "sc.exe delete $ServiceName failed with exit code ${LASTEXITCODE}: $($output.Trim())"
    }
    Write-Output "removed service $ServiceName; HNS load balancers were left in place"
}
