// Checks of the shipped PowerShell sources beyond syntax: every function has comment-based help, and the module
// manifest, the module's export list and the dot-sourced files agree.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createParser, findPowerShellFiles } from '../tools/check-powershell-syntax.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const moduleDir = join(here, '..', 'src', 'main', 'powershell', 'WinProxy');
const shipped = findPowerShellFiles([join(here, '..', 'src'), join(here, '..', '..', 'installer', 'src')], []);
const APPROVED_VERBS = new Set(['Get', 'Set', 'New', 'Remove', 'Invoke', 'Trace', 'Join', 'ConvertTo', 'Resolve',
  'Save', 'Test', 'Find', 'Start', 'Stop', 'Install', 'Uninstall']);

/** The functions defined in a source text: { name, hasHelp, line }. */
async function functionsOf(text) {
  const parser = await createParser();
  const tree = parser.parse(text);
  const found = [];
  const visit = (node) => {
    if (node.type === 'function_statement') {
      const name = node.children.find((c) => c.type === 'function_name');
      const help = node.children.some((c) => c.type === 'comment' && /^\s*\.SYNOPSIS\b/m.test(c.text));
      found.push({ name: name ? name.text : '?', hasHelp: help, line: node.startPosition.row + 1 });
    }
    node.children.forEach(visit);
  };
  visit(tree.rootNode);
  tree.delete();
  return found;
}

function quotedList(text, opener) {
  const at = text.indexOf(opener);
  assert.ok(at >= 0, `"${opener}" not found`);
  const end = text.indexOf(')', at + opener.length);
  return [...text.slice(at + opener.length, end).matchAll(/'([^']+)'/g)].map((m) => m[1]);
}

test('the shipped PowerShell sources include the module and the installer scripts', () => {
  const names = shipped.map((f) => basename(f));
  for (const expected of ['WinProxy.psm1', 'WinProxy.psd1', 'install-service.ps1', 'winproxy.ps1']) {
    assert.ok(names.includes(expected), `${expected} missing from ${names.join(', ')}`);
  }
});

test('every function has comment-based help with a synopsis', async () => {
  const missing = [];
  let count = 0;
  for (const file of shipped.filter((f) => !f.endsWith('.psd1'))) {
    for (const fn of await functionsOf(readFileSync(file, 'utf8'))) {
      count++;
      if (!fn.hasHelp) {
        missing.push(`${file}:${fn.line}: ${fn.name}`);
      }
    }
  }
  assert.ok(count > 10, `only ${count} functions found`);
  assert.deepEqual(missing, []);
});

test('the manifest exports exactly what the module exports, and every export is defined', async () => {
  const manifest = readFileSync(join(moduleDir, 'WinProxy.psd1'), 'utf8');
  const module = readFileSync(join(moduleDir, 'WinProxy.psm1'), 'utf8');
  const manifestExports = quotedList(manifest, 'FunctionsToExport    = @(');
  const moduleExports = quotedList(module, 'Export-ModuleMember -Function @(');
  assert.deepEqual([...manifestExports].sort(), [...moduleExports].sort());

  const parts = quotedList(module, 'foreach ($part in @(');
  const defined = new Set();
  for (const part of parts) {
    const file = join(moduleDir, part);
    assert.ok(existsSync(file), `${part} is dot-sourced but does not exist`);
    (await functionsOf(readFileSync(file, 'utf8'))).forEach((fn) => defined.add(fn.name));
  }
  for (const name of moduleExports) {
    assert.ok(defined.has(name), `${name} is exported but not defined`);
    assert.ok(APPROVED_VERBS.has(name.split('-')[0]), `${name} does not use an approved verb`);
  }
});

test('the manifest points at the module and names a version', () => {
  const manifest = readFileSync(join(moduleDir, 'WinProxy.psd1'), 'utf8');
  assert.match(manifest, /RootModule\s*=\s*'WinProxy\.psm1'/);
  assert.match(manifest, /ModuleVersion\s*=\s*'\d+\.\d+\.\d+'/);
  assert.match(manifest, /GUID\s*=\s*'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'/);
});
