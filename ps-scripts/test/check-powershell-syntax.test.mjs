// Proves that the syntax check can fail: it is run against deliberately broken scripts and must reject them with
// FILE:LINE:COL lines, while the valid fixtures pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createParser, findProblems } from '../tools/check-powershell-syntax.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const checker = join(here, '..', 'tools', 'check-powershell-syntax.mjs');
const fixtures = join(here, 'fixtures');

function check(...args) {
  const result = spawnSync(process.execPath, [checker, ...args], { cwd: here, encoding: 'utf8' });
  return { code: result.status, output: result.stdout + result.stderr };
}

test('the broken fixtures fail the check with file, line and column', () => {
  const { code, output } = check(join(fixtures, 'broken'));
  assert.equal(code, 1, output);
  assert.match(output, /unclosed-block\.ps1:6:2: missing "}"/);
  assert.match(output, /bad-expression\.ps1:3:1: syntax error/);
  assert.match(output, /2 syntax error\(s\)/);
});

test('the valid fixtures pass the check', () => {
  const { code, output } = check(join(fixtures, 'valid'));
  assert.equal(code, 0, output);
  assert.match(output, /checked 2 PowerShell file\(s\): 0 syntax error\(s\)/);
});

test('excluded directories are not checked', () => {
  const { code, output } = check('--exclude', join(fixtures, 'broken'), fixtures);
  assert.equal(code, 0, output);
});

test('a directory without PowerShell files is a usage error, not a pass', () => {
  const { code, output } = check(mkdtempSync(join(tmpdir(), 'ps-empty-')));
  assert.equal(code, 2, output);
  assert.match(output, /no \.ps1, \.psm1 or \.psd1 file found/);
});

test('a path that does not exist is a usage error', () => {
  const { code, output } = check(join(fixtures, 'no-such-dir'));
  assert.equal(code, 2, output);
  assert.match(output, /no such file or directory/);
});

test('a byte order mark at the start of a file is accepted', async () => {
  const parser = await createParser();
  assert.deepEqual(findProblems(parser, '\ufeffWrite-Output "bom"\n'), []);
});

test('one mistake in a long script is reported at its line', async () => {
  const parser = await createParser();
  const lines = Array.from({ length: 20 }, (_, i) => `$v${i} = ${i}`);
  lines[12] = '$broken = @(1, 2';
  const problems = findProblems(parser, lines.join('\n') + '\n');
  assert.ok(problems.length >= 1, JSON.stringify(problems));
  assert.equal(problems[0].line, 13, JSON.stringify(problems));
});
