// The module reads Get-HnsPolicyList in both shapes it comes in: the HNS v1 policy list of the in-box
// HostNetworkingService module, and the HCN v2 load balancer of microsoft/SDN's hns.v2.psm1 (which collectlogs.ps1
// imports, replacing the in-box function of the same name). PowerShell does not run here, so this checks, against
// fixtures of both shapes, that the shape markers in the module classify each fixture correctly and that every
// field a fixture carries for the load-balancer view is a name the converter reads on that shape's path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { functionText as sharedFunctionText } from './powershell-source.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const source = readFileSync(join(here, '..', 'src', 'main', 'powershell', 'WinProxy', 'WinProxy.LoadBalancer.ps1'),
  'utf8');
const v1 = JSON.parse(readFileSync(join(here, 'fixtures', 'hns', 'policylist-v1.json'), 'utf8'));
const v2 = JSON.parse(readFileSync(join(here, 'fixtures', 'hns', 'policylist-v2.json'), 'utf8'));

function quotedArray(name) {
  const m = source.match(new RegExp(`\\$script:${name}\\s*=\\s*@\\(([^)]*)\\)`));
  assert.ok(m, `$script:${name} not found`);
  return [...m[1].matchAll(/'([^']+)'/g)].map((x) => x[1]);
}

/** Get-WinProxyHnsSchema's rule, with the marker lists read from the module (v2 markers first). */
function schemaOf(object) {
  const has = (name) => Object.keys(object).some((k) => k.toLowerCase() === name.toLowerCase());
  if (quotedArray('HnsV2Markers').some(has)) {
    return 'HnsV2';
  }
  if (quotedArray('HnsV1Markers').some(has)) {
    return 'HnsV1';
  }
  return null;
}

/** The text of one function definition of the source, found with the PowerShell grammar. */
function functionText(name) {
  return sharedFunctionText(source, name);
}

/** Every property name the converter asks Get-WinProxyMember for, lower-cased (PowerShell ignores case). */
async function namesRead() {
  const text = await functionText('ConvertTo-WinProxyLoadBalancer');
  const names = new Set();
  for (const call of text.matchAll(/Get-WinProxyMember\s+-InputObject\s+\$\w+\s+-Name\s+((?:'[^']+'\s*,?\s*)+)/g)) {
    for (const n of call[1].matchAll(/'([^']+)'/g)) {
      names.add(n[1].toLowerCase());
    }
  }
  return names;
}

test('an HNS v1 policy list is recognised as v1 and an HCN v2 load balancer as v2', () => {
  assert.equal(schemaOf(v1[0]), 'HnsV1');
  assert.equal(schemaOf(v2[0]), 'HnsV2');
  assert.equal(schemaOf({ ID: 'x', State: 1 }), null);
});

test('no v2 document is taken for v1: v2 markers are not v1 properties and are looked at first', () => {
  const v1Keys = new Set(Object.keys(v1[0]).map((k) => k.toLowerCase()));
  for (const marker of quotedArray('HnsV2Markers')) {
    assert.ok(!v1Keys.has(marker.toLowerCase()), `${marker} is also a v1 property`);
  }
  const schema = source.slice(source.indexOf('function Get-WinProxyHnsSchema'));
  assert.ok(schema.indexOf('HnsV2Markers') < schema.indexOf('HnsV1Markers'), 'v1 markers are tested first');
});

test('every load-balancer field of the v2 fixture is read by the converter', async () => {
  const read = await namesRead();
  const lb = v2[0];
  const needed = ['ID', 'HostComputeEndpoints', 'SourceVIP', 'FrontendVIPs', 'PortMappings', 'Flags',
    ...Object.keys(lb.PortMappings[0]).filter((k) => k !== 'Flags')];
  for (const field of needed) {
    assert.ok(field in lb || field in lb.PortMappings[0], `${field} is not in the fixture`);
    assert.ok(read.has(field.toLowerCase()), `the converter never reads ${field}`);
  }
});

test('every load-balancer field of the v1 fixture is read by the converter', async () => {
  const read = await namesRead();
  const lb = v1[0];
  const policy = lb.Policies[0];
  for (const field of ['ID', 'Policies', 'References', 'Type', ...Object.keys(policy).filter((k) => k !== 'ILB')]) {
    assert.ok(field in lb || field in policy, `${field} is not in the fixture`);
    assert.ok(read.has(field.toLowerCase()), `the converter never reads ${field}`);
  }
});

test('the v1 path reads the ELB policy and the v2 path the first port mapping', async () => {
  const text = await functionText('ConvertTo-WinProxyLoadBalancer');
  assert.match(text, /if \(\$shape -eq 'HnsV1'\)[\s\S]*-Name 'Policies'[\s\S]*-eq 'ELB'/);
  assert.match(text, /else \{\s*\$mapping = @\(Get-WinProxyMember -InputObject \$lb -Name 'PortMappings'\)/);
  assert.match(text, /if \(\$Source -eq 'HnsModule'\) \{\s*\$shape = Get-WinProxyHnsSchema/);
});

test('Get-WinProxyLoadBalancer lets each object from Get-HnsPolicyList pick its own shape', async () => {
  const text = await functionText('Get-WinProxyLoadBalancer');
  const line = text.split('\n').find((l) => l.includes('@(Get-HnsPolicyList)'));
  assert.ok(line, 'Get-HnsPolicyList is not read');
  assert.match(line, /ConvertTo-WinProxyLoadBalancer -Source HnsModule\s*$/);
});

test('-Source HnsModule classifies every object on its own: the parameter is never overwritten', async () => {
  const text = await functionText('ConvertTo-WinProxyLoadBalancer');
  const body = text.slice(text.indexOf('process {'));
  // Assigning $Source in the process block would keep the first object's shape for every later object.
  assert.doesNotMatch(body, /\$Source\s*=[^=]/i);
  assert.match(body, /\$shape\s*=\s*Get-WinProxyHnsSchema\s+-InputObject\s+\$lb/);
  assert.match(body, /Source\s+=\s+\$shape/);
});
