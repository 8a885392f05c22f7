/**
 * parser.ts copies the tree asking the parser as little as it can: whether a node is missing
 * (inserted to recover from a syntax error) only when the root has an error, and a type's name and
 * namedness once per type id. A missing node the copy lost would be a syntax error read as a
 * well-formed command, and a wrong type a command read as something else, so the copy is checked
 * here against a reference walk that asks the cursor everything for every node, on broken lines
 * written by hand and on generated ones.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { Language, Parser } from 'web-tree-sitter';
import { propertySeed } from '../../test/helpers';
import { loadShellParser, parseShell, type ShellNode } from './parser';

const SEED = propertySeed('parser missing-node properties');

let reference: Parser;
beforeAll(async () => {
  await loadShellParser();
  await Parser.init();
  const wasm = readFileSync(
    createRequire(import.meta.url).resolve('tree-sitter-bash/tree-sitter-bash.wasm'),
  );
  reference = new Parser();
  reference.setLanguage(await Language.load(new Uint8Array(wasm)));
});

/** The tree as the reference walk copies it: every field asked of the cursor at every node. */
const referenceTree = (line: string): ShellNode => {
  const tree = reference.parse(line);
  if (tree === null) throw new Error(`the reference parser gave up on ${line}`);
  const cursor = tree.walk();
  const copy = (): ShellNode => {
    const node: ShellNode = {
      type: cursor.nodeType,
      field: cursor.currentFieldName,
      named: cursor.nodeIsNamed,
      missing: cursor.nodeIsMissing,
      start: cursor.startIndex,
      end: cursor.endIndex,
      children: [],
    };
    if (cursor.gotoFirstChild()) {
      do node.children.push(copy());
      while (cursor.gotoNextSibling());
      cursor.gotoParent();
    }
    return node;
  };
  const root = copy();
  cursor.delete();
  tree.delete();
  return root;
};

const copied = (line: string): ShellNode => {
  const parsed = parseShell(line);
  if (!('root' in parsed)) throw new Error(parsed.error);
  return parsed.root;
};

const hasMissing = (node: ShellNode): boolean => node.missing || node.children.some(hasMissing);

describe('the copy of the tree is the tree', () => {
  const broken = [
    'if true; then echo x',
    'echo $(ls',
    'echo "unterminated',
    "echo 'unterminated",
    'for i in a b; do echo $i',
    'case x in a) echo',
    'while true; do',
    'x=$((1 +',
    '{ echo x',
    '( echo x',
    'echo ${x',
    'cat <<EOF',
    'f() {',
    'a && ',
    'a |',
    '[[ -f x',
    'echo `ls',
  ];

  it.each(broken)('%s: every node, the missing ones too, is copied as it is', (line) => {
    expect(copied(line)).toEqual(referenceTree(line));
  });

  const wellFormed = [
    'git log --oneline -n 20 | head -5',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell words, not templates
    'a=(1 2); echo ${a[@]} | grep -v x > out 2>&1',
    'cd packages/app && pnpm test 2>&1 | tail -20',
    'for f in *.ts; do [[ -f $f ]] && echo "$f"; done',
    "case $x in a|b) echo 'y';; *) :;; esac",
    'x=$((1 + 2)); f() { echo $1; }; coproc C { cat; }',
    'cat <<EOF\nbody $x\nEOF\n',
    'find . -name "*.ts" -exec grep -l TODO {} +',
  ];
  it.each(wellFormed)('%s: copied node for node', (line) => {
    const tree = referenceTree(line);
    expect(hasMissing(tree)).toBe(false);
    expect(copied(line)).toEqual(tree);
  });

  it('the hand-written lines include some with a missing node (else the check above is idle)', () => {
    expect(broken.filter((line) => hasMissing(referenceTree(line))).length).toBeGreaterThan(5);
  });

  it('agrees with the reference on generated lines, broken or not', () => {
    const token = fc.constantFrom(
      'if',
      'then',
      'fi',
      'do',
      'done',
      'for',
      'in',
      'case',
      'esac',
      ')',
      '(',
      '{',
      '}',
      '$(',
      '${',
      '"',
      "'",
      '`',
      '&&',
      '||',
      '|',
      ';',
      '<<',
      '[[',
      ']]',
      '$((',
      'echo',
      'x',
      '=',
      'a=(1 2)',
      '"$x"',
      '> f',
      '2>&1',
      '--opt=1',
      ' ',
      '\n',
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 24 }), (tokens) => {
        const line = tokens.join(' ');
        expect(copied(line)).toEqual(referenceTree(line));
      }),
      { seed: SEED, numRuns: 400 },
    );
  });
});
