#!/usr/bin/env node
// Syntax check for PowerShell sources (.ps1, .psm1, .psd1) with the tree-sitter-powershell grammar, loaded as
// WASM by web-tree-sitter so no native build is needed.
//
// Usage: node check-powershell-syntax.mjs [--exclude PATH]... PATH...
//   Each PATH is a file or a directory searched recursively (node_modules, target and .git are skipped, and so is
//   every --exclude PATH, relative to the working directory).
// Prints one line per problem as FILE:LINE:COL: message (1-based), then a summary line.
// Exit codes: 0 no problem; 1 syntax errors; 2 bad usage or no PowerShell file found (a check that checks
// nothing must not pass).

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { relative, resolve, extname, join } from 'node:path';
import process from 'node:process';
import v8 from 'node:v8';
import { Language, Parser } from 'web-tree-sitter';

const EXTENSIONS = new Set(['.ps1', '.psm1', '.psd1']);
const SKIPPED_DIRECTORIES = new Set(['node_modules', 'target', '.git']);

/** Parses the command line into { roots, excludes } or throws an Error with a one-line message. */
export function parseArguments(argv) {
  const roots = [];
  const excludes = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--exclude') {
      if (i + 1 >= argv.length) {
        throw new Error('--exclude needs a path');
      }
      excludes.push(resolve(argv[++i]));
    } else if (arg.startsWith('--')) {
      throw new Error(`unknown option ${arg}`);
    } else {
      roots.push(resolve(arg));
    }
  }
  if (roots.length === 0) {
    throw new Error('no path given: usage: check-powershell-syntax.mjs [--exclude PATH]... PATH...');
  }
  return { roots, excludes };
}

/** Lists the PowerShell files under the roots, sorted, without the excluded trees. */
export function findPowerShellFiles(roots, excludes) {
  const found = [];
  const isExcluded = (path) => excludes.some((ex) => path === ex || path.startsWith(ex + '/') || path.startsWith(ex + '\\'));
  const visit = (path) => {
    if (isExcluded(path)) {
      return;
    }
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) {
      throw new Error(`${path}: no such file or directory`);
    }
    if (stat.isDirectory()) {
      for (const entry of readdirSync(path).sort()) {
        if (!SKIPPED_DIRECTORIES.has(entry)) {
          visit(join(path, entry));
        }
      }
    } else if (EXTENSIONS.has(extname(path).toLowerCase())) {
      found.push(path);
    }
  };
  roots.forEach(visit);
  return [...new Set(found)].sort();
}

/** Loads the PowerShell grammar and returns a ready parser. */
export async function createParser() {
  // The grammar is a 1 MB WASM module. V8's optimizing tier would spend seconds of CPU compiling it in the
  // background (and the process waits for that at exit) for parses that take milliseconds: use the baseline tier.
  v8.setFlagsFromString('--liftoff-only');
  await Parser.init();
  const require = createRequire(import.meta.url);
  const wasm = require.resolve('tree-sitter-powershell/tree-sitter-powershell.wasm');
  const parser = new Parser();
  parser.setLanguage(await Language.load(wasm));
  return parser;
}

/**
 * Returns the problems of one source text: { line, column, message } with 1-based positions, one per ERROR or
 * MISSING node (the outermost ERROR node only, so one mistake gives one line).
 */
export function findProblems(parser, text) {
  // A UTF-8 byte order mark is legal at the start of a PowerShell file; the grammar does not expect it.
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const tree = parser.parse(source);
  const problems = [];
  const visit = (node) => {
    if (node.isMissing) {
      problems.push(problem(node, `missing ${JSON.stringify(node.type)}`));
    } else if (node.isError) {
      const start = errorStart(node);
      const snippet = source.slice(start.startIndex).split(/\r?\n/, 1)[0].slice(0, 40);
      problems.push(problem(start, `syntax error at ${JSON.stringify(snippet)}`));
    } else if (node.hasError) {
      for (const child of node.children) {
        visit(child);
      }
    }
  };
  visit(tree.rootNode);
  tree.delete();
  return problems;
}

/**
 * Where the mistake inside an ERROR node begins. Error recovery often wraps the complete statements that precede
 * the mistake into the same ERROR node (an unclosed "@(" can swallow the whole file), so the first child that is not
 * a complete statement is the better position; the ERROR node itself when there is none.
 */
function errorStart(node) {
  for (const child of node.children) {
    const complete = !child.hasError && (child.type === 'pipeline' || child.type === 'comment'
        || child.type.endsWith('_statement'));
    if (!complete) {
      return child;
    }
  }
  return node;
}

function problem(node, message) {
  return { line: node.startPosition.row + 1, column: node.startPosition.column + 1, message };
}

async function main(argv) {
  let files;
  try {
    const { roots, excludes } = parseArguments(argv);
    files = findPowerShellFiles(roots, excludes);
  } catch (e) {
    console.error(`check-powershell-syntax: ${e.message}`);
    return 2;
  }
  if (files.length === 0) {
    console.error('check-powershell-syntax: no .ps1, .psm1 or .psd1 file found');
    return 2;
  }
  const parser = await createParser();
  let errors = 0;
  for (const file of files) {
    const name = relative(process.cwd(), file) || file;
    for (const p of findProblems(parser, readFileSync(file, 'utf8'))) {
      console.log(`${name}:${p.line}:${p.column}: ${p.message}`);
      errors++;
    }
  }
  const summary = `checked ${files.length} PowerShell file(s): ${errors} syntax error(s)`;
  if (errors > 0) {
    console.error(summary);
    return 1;
  }
  console.log(summary);
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(fileURLToPath(import.meta.url))) {
  process.exitCode = await main(process.argv.slice(2));
}
