// The module's commands around the agent: where it finds a launcher, which flags it takes from the installed
// service, the trace protocols, the status wrapper and the diagnostics steps for status and check. PowerShell does
// not run here, so this reads the functions with the PowerShell grammar and runs their regular expressions (the
// module's own text; .NET and JavaScript agree on the syntax used) against service command lines of the launcher
// families.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { functionText } from './powershell-source.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const module = (file) => readFileSync(join(here, '..', 'src', 'main', 'powershell', 'WinProxy', file), 'utf8');
const agent = module('WinProxy.Agent.ps1');
const commands = module('WinProxy.Commands.ps1');
const diagnostics = module('WinProxy.Diagnostics.ps1');

/** The single-quoted pattern of the first `-match '...'` / `Matches(..., '...')` after `marker` in `text`. */
function patternAfter(text, marker) {
  const at = text.indexOf(marker);
  assert.ok(at >= 0, `${marker} not found`);
  const m = text.slice(at).match(/'((?:[^']|'')*)'/);
  return new RegExp(m[1].replace(/''/g, "'"));
}

/** Split-WinProxyCommandLine, with its own pattern and quote handling. */
async function split(line) {
  const body = await functionText(agent, 'Split-WinProxyCommandLine');
  const token = new RegExp(patternAfter(body, '[regex]::Matches(').source, 'g');
  return [...line.matchAll(token)].map((m) => m[0].replace(/\\"/g, '\u0001').replace(/"/g, '').replace(/\u0001/g, '"'));
}

/** Get-WinProxyServiceAgentArgument's selection, with its own patterns, on one binary path. */
async function serviceFlags(line) {
  const body = await functionText(agent, 'Get-WinProxyServiceAgentArgument');
  const program = patternAfter(body, '$arguments[$i] -match');
  const single = patternAfter(body, '$argument -match');
  const withValue = patternAfter(body.slice(body.indexOf('$argument -match') + 20), '$argument -match');
  const args = await split(line);
  let start = -1;
  args.forEach((a, i) => { if (program.test(a)) start = i + 1; });
  if (start < 0) return null;
  const flags = [];
  for (let i = start; i < args.length; i++) {
    if (single.test(args[i])) continue;
    const m = args[i].match(withValue);
    if (m) { if (!m[2]) i++; continue; }
    flags.push(args[i]);
  }
  return flags;
}

test('a service command line is split as CommandLineToArgvW splits the usual ones', async () => {
  assert.deepEqual(await split('"C:\\Program Files\\Java\\bin\\java.exe" -Xrs -jar C:\\k\\winproxy-agent.jar "--log-file=C:\\k\\a b.log"'),
    ['C:\\Program Files\\Java\\bin\\java.exe', '-Xrs', '-jar', 'C:\\k\\winproxy-agent.jar', '--log-file=C:\\k\\a b.log']);
  assert.deepEqual(await split('a "say \\"hi\\"" b'), ['a', 'say "hi"', 'b']);
});

test('plan, status and check take the proxy flags of the installed service, not its service and logging flags', async () => {
  // install-service.ps1's java.exe service
  assert.deepEqual(await serviceFlags('"C:\\k\\winproxy\\runtime\\bin\\java.exe" -Xrs -Djna.nounpack=true -jar '
    + 'C:\\k\\winproxy\\winproxy-agent.jar --config=C:\\k\\winproxy\\conf\\kube-proxy-config-service.yaml '
    + '--logtostderr=false "--log-file=C:\\k\\winproxy\\logs\\winproxy.log" --windows-priorityclass=ABOVE_NORMAL_PRIORITY_CLASS'),
  ['--config=C:\\k\\winproxy\\conf\\kube-proxy-config-service.yaml']);
  // OpenShift WMCO: kube-log-runner in front of a swapped-in kube-proxy.exe
  assert.deepEqual(await serviceFlags('C:\\k\\kube-log-runner.exe -log-file=C:\\var\\log\\kube-proxy\\kube-proxy.log '
    + 'C:\\k\\kube-proxy.exe --config C:\\k\\kube-proxy.conf --windows-service'),
  ['--config', 'C:\\k\\kube-proxy.conf']);
  // a log directory given as a separate value, and the flags kept in order
  assert.deepEqual(await serviceFlags('C:\\k\\kube-proxy.exe --v=4 --log-dir C:\\var\\log\\kube-proxy --logtostderr=false '
    + '--hostname-override=node1'), ['--v=4', '--hostname-override=node1']);
  // nssm or powershell.exe services are not winproxy's binary: no flags from them
  assert.equal(await serviceFlags('C:\\Program Files\\nssm\\nssm.exe'), null);
});

test('the launcher is winproxy.cmd, or kube-proxy.exe where winproxy-agent.jar is beside it, also in the services\' folders', async () => {
  const body = await functionText(agent, 'Get-WinProxyLauncherIn');
  assert.match(body, /'winproxy\.cmd'/);
  assert.match(body, /'kube-proxy\.exe'[\s\S]*'winproxy-agent\.jar'/);
  const resolve = await functionText(agent, 'Resolve-WinProxyLauncher');
  assert.match(resolve, /Get-WinProxyServiceBinary -Name \$name/);
  assert.match(resolve, /Get-WinProxyLauncherIn -Folder \$folder/);
});

test('Get-WinProxyPlan and Get-WinProxyServiceStatus work without arguments', async () => {
  for (const name of ['Get-WinProxyPlan', 'Get-WinProxyServiceStatus']) {
    const body = await functionText(commands, name);
    assert.match(body, /if \(\$AgentArgument\.Count -eq 0\) \{\s*\$AgentArgument = @\(Get-WinProxyServiceAgentArgument\)/, name);
  }
});

test('Trace-WinProxyPacket offers TCP and UDP only', async () => {
  const body = await functionText(commands, 'Trace-WinProxyPacket');
  assert.match(body, /\[ValidateSet\('TCP', 'UDP'\)\]/);
  assert.doesNotMatch(body, /SCTP'/);
});

test('the status wrapper emits one object per element of the array or of its ports field', async () => {
  const body = await functionText(commands, 'ConvertTo-WinProxyStatusEntry');
  assert.match(body, /\$Document -is \[System\.Array\][\s\S]*return \$Document/);
  assert.match(body, /-Name 'ports'[\s\S]*return @\(\$ports\)[\s\S]*return @\(\$Document\)/);
  const wrapper = await functionText(commands, 'Get-WinProxyServiceStatus');
  assert.match(wrapper, /@\('status'\) \+ \$AgentArgument/);
  assert.match(wrapper, /TypeNames\.Insert\(0, 'WinProxy\.ServiceStatus'\)/);
});

test('the diagnostics bundle has winproxy status and check as JSON', async () => {
  const body = await functionText(diagnostics, 'Get-WinProxyDiagnostics');
  for (const [command, file] of [['plan', 'winproxy-plan.json'], ['status', 'winproxy-status.json'],
    ['check', 'winproxy-check.json']]) {
    assert.match(body, new RegExp(`Name = '${command}'; File = '${file}'`));
  }
  assert.match(body, /Invoke-WinProxyJson -Arguments \(@\(\$command\.Name\) \+ \$proxyFlags\)/);
  assert.match(body, /Get-WinProxyServiceAgentArgument -Name \$ServiceName/);
});
