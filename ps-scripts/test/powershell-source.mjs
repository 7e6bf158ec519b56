// Helpers the tests share for reading winproxy's PowerShell sources with the PowerShell grammar.
import assert from 'node:assert/strict';
import { createParser } from '../tools/check-powershell-syntax.mjs';

/** The text of the function definition called `name` in `source`; fails the test when there is none. */
export async function functionText(source, name) {
  const parser = await createParser();
  const tree = parser.parse(source);
  let text = null;
  const visit = (node) => {
    if (node.type === 'function_statement'
        && node.children.some((c) => c.type === 'function_name' && c.text === name)) {
      text = node.text;
    }
    node.children.forEach(visit);
  };
  visit(tree.rootNode);
  tree.delete();
  assert.ok(text, `function ${name} not found`);
  return text;
}
