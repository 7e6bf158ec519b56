// The diagnostics bundle of the WinProxy module (Get-WinProxyDiagnostics): it collects what a bug report needs
// and never a credential. PowerShell does not run here, so this checks the cmdlet's steps with the PowerShell
// grammar, and runs its regular expressions (the module's own text, .NET and JavaScript agree on the syntax used)
// and its stale-endpoint rule against fixtures: a real 'hns list -o json' of the demo host with one Service's load
// balancers removed, secrets as they appear in kubeconfigs and logs, and service command lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { functionText as sharedFunctionText } from './powershell-source.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const source = readFileSync(join(here, '..', 'src', 'main', 'powershell', 'WinProxy', 'WinProxy.Diagnostics.ps1'),
  'utf8');
const fixture = (name) => readFileSync(join(here, 'fixtures', 'diagnostics', name), 'utf8');

/** A PowerShell single-quoted string assigned to $script:NAME, as a JavaScript RegExp. */
function scriptRegex(name, flags = 'g') {
  const m = source.match(new RegExp(`\\$script:${name} = '([^']*(?:''[^']*)*)'`));
  assert.ok(m, `$script:${name} not found`);
  let pattern = m[1].replace(/''/g, "'");
  if (pattern.startsWith('(?i)')) {
    pattern = pattern.slice(4);
    flags += 'i';
  }
  return new RegExp(pattern, flags);
}

/** The text of one function definition of the source, found with the PowerShell grammar. */
function functionText(name) {
  return sharedFunctionText(source, name);
}

test('the bundle has a step for every item of a bug report', async () => {
  const body = await functionText('Get-WinProxyDiagnostics');
  for (const file of ['ownership.json', 'ownership.log', 'configz.json', 'metrics.txt', 'winproxy-hns-list.json',
    'winproxy-plan.json', 'hns-version.txt', 'winproxy-hns-networks.json', 'hns-networks.json',
    'stale-remote-endpoints.json', 'winproxy-events.txt', 'hns-policylists.json']) {
    assert.ok(body.includes(`'${file}'`), `no step writes ${file}`);
  }
  assert.match(body, /Invoke-WebRequest[^\n]*http:\/\/\$MetricsAddress\/\$\(\$endpoint\.Path\)/);
  assert.match(body, /Get-WinProxyLogLocation -CommandLine \$commandLines/, 'logs are not looked up where the flags put them');
  assert.match(body, /Win32_Service[\s\S]*PathName/, 'the services\' command lines are not read');
  assert.match(body, /Compress-Archive/);
});

test('no kubeconfig is collected and everything written is redacted', async () => {
  const body = await functionText('Get-WinProxyDiagnostics');
  assert.doesNotMatch(body.replace(/<#[\s\S]*?#>/, ''), /kubeconfig/i);
  const writes = [...source.matchAll(/Set-Content(?:[^\n]*`\r?\n)*[^\n]*/g)].map((m) => m[0]);
  assert.ok(writes.length >= 2, 'no write found');
  for (const write of writes) {
    assert.match(write, /Protect-WinProxySecret/, `unredacted write: ${write}`);
  }
});

test('tokens, passwords and kubeconfig keys are redacted and the rest is kept', () => {
  const text = fixture('secrets.txt');
  const cleaned = text.replace(scriptRegex('WinProxySecretPattern'), '$1<redacted>');
  for (const secret of ['eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ', 'LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0t',
    'sha256~AbCdEf0123456789', 'hunter2']) {
    assert.ok(text.includes(secret));
    assert.ok(!cleaned.includes(secret), `${secret} survived`);
  }
  assert.match(cleaned, /token: <redacted>/);
  assert.match(cleaned, /Bearer <redacted>/);
  assert.match(cleaned, /"password":"<redacted>"/);
  assert.match(cleaned, /"server":"https:\/\/10\.0\.0\.1:6443"/);
  assert.match(cleaned, /Sync 1: 14 created, 0 modified/);
});

test('the log locations are read from --log-file and --log-dir in every spelling', () => {
  const found = [];
  for (const line of fixture('service-command-lines.txt').split('\n').filter(Boolean)) {
    for (const m of line.matchAll(scriptRegex('WinProxyLogFlagPattern'))) {
      found.push(m[2] ?? m[3]);
    }
  }
  assert.deepEqual(found, ['C:\\k\\winproxy\\logs\\winproxy.log', 'C:\\var\\log\\kube-proxy',
    'C:\\Program Files\\kube proxy\\kp.log']);
});

test('a remote endpoint no load balancer references is stale, by the fields hns list -o json really has', async () => {
  const listing = JSON.parse(fixture('hns-list.json'));
  const body = await functionText('Find-WinProxyStaleRemoteEndpoint');
  const names = [...body.matchAll(/-Name '([^']+)'/g)].map((m) => m[1]);
  assert.deepEqual([...new Set(names)].sort(), ['backendEndpoints', 'endpoints', 'id', 'loadBalancers', 'remote']);
  assert.ok(Array.isArray(listing.loadBalancers) && listing.loadBalancers.every((lb) => 'backendEndpoints' in lb));
  assert.ok(listing.endpoints.every((e) => 'id' in e && 'remote' in e));
  assert.match(body, /ToLowerInvariant\(\)[\s\S]*ToLowerInvariant\(\)/, 'IDs must be compared without case');

  // The rule the function implements, on the fixture: exactly the backend of the removed Service is stale.
  const referenced = new Set(listing.loadBalancers.flatMap((lb) => lb.backendEndpoints).map((id) => id.toLowerCase()));
  const stale = listing.endpoints.filter((e) => e.remote === true && !referenced.has(e.id.toLowerCase()));
  assert.deepEqual(stale.map((e) => e.ip), ['10.244.2.30']);
});

test('only winproxy\'s and kube-proxy\'s log files are taken from a log folder, never programs, keys or configs', () => {
  const logName = scriptRegex('WinProxyLogNamePattern', '');
  const never = scriptRegex('WinProxyNeverCollectPattern', '');
  const taken = (name) => logName.test(name) && !never.test(name);
  const lines = fixture('log-folder-listing.txt').split('\n').filter((l) => l && !l.startsWith('#'));
  const expected = lines.filter((l) => l.startsWith('take ')).map((l) => l.slice(5));
  const refused = lines.filter((l) => l.startsWith('skip ')).map((l) => l.slice(5));
  assert.ok(expected.length >= 6 && refused.length >= 10);
  for (const name of expected) {
    assert.ok(taken(name), `${name} should be collected`);
  }
  for (const name of refused) {
    assert.ok(!taken(name), `${name} must not be collected`);
  }
});

test('a file named by a flag or nssm is taken with its rotations, unless it is a program, key or config', () => {
  const never = scriptRegex('WinProxyNeverCollectPattern', '');
  for (const path of ['C:\\k\\kube-proxy.exe', 'C:\\k\\pki\\client.key', 'C:\\k\\config', 'C:\\k\\kubeconfig',
    'C:\\Users\\a\\.kube\\config', 'C:\\k\\ca.crt', 'C:\\k\\winproxy\\winproxy-agent.jar',
    'C:\\k\\kube-proxy.yaml']) {
    assert.ok(never.test(path), `${path} must never be collected`);
  }
  for (const path of ['C:\\k\\kube-proxy.out', 'C:\\k\\kube-proxy.err.log', 'C:\\k\\winproxy\\logs\\winproxy.log',
    'C:\\k\\winproxy\\logs\\winproxy.log.3']) {
    assert.ok(!never.test(path), `${path} should be collectable`);
  }
});

test('logs come from --log-file, nssm\'s AppStdout and AppStderr and log folders by name, not whole folders', async () => {
  const body = await functionText('Get-WinProxyDiagnostics');
  assert.match(body, /Get-WinProxyLogLocation -CommandLine \$commandLines -Flag 'log-file'/);
  assert.match(body, /Get-WinProxyLogLocation -CommandLine \$commandLines -Flag 'log-dir'/);
  assert.match(body, /Get-WinProxyNssmLogPath -ServiceName \$ServiceName/);
  assert.match(body, /Select-WinProxyLogFile -NamedFile \$namedFiles -Folder \$logFolders/);
  assert.doesNotMatch(body, /-Recurse(?! -Force -ErrorAction SilentlyContinue)/, 'a log folder is searched recursively');

  const nssm = await functionText('Get-WinProxyNssmLogPath');
  assert.match(nssm, /HKLM:\\SYSTEM\\CurrentControlSet\\Services\\\$name\\Parameters/);
  assert.match(nssm, /'AppStdout', 'AppStderr'/);

  const select = await functionText('Select-WinProxyLogFile');
  assert.match(select, /\$_\.Name -match \$script:WinProxyLogNamePattern/, 'folder files are not filtered by name');
  assert.match(select, /\$item\.FullName -notmatch \$script:WinProxyNeverCollectPattern/);
  assert.match(select, /"\$file\.\*"[\s\S]*'\\\.\\d\+\$'/, 'rotations of a named file are not taken');
  assert.doesNotMatch(select, /-Recurse/);
});

test('the log location lookup can be limited to one flag', async () => {
  const body = await functionText('Get-WinProxyLogLocation');
  assert.match(body, /\$match\.Groups\[1\]\.Value -ne \$Flag/);
});
