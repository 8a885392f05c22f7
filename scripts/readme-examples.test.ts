import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM script without declarations.
import * as parse from './readme-examples-parse.mjs';

interface Block {
  line: number;
  lang: string;
  code: string;
  marker: { line?: number; continues: boolean; typecheckOnly?: string };
}
interface Example {
  node?: string;
  line: number;
  code: string;
  chain: number[];
  reason?: string;
  run: boolean;
}
const fencedBlocks: (markdown: string, file?: string) => Block[] = parse.fencedBlocks;
const installCommands: (blocks: Block[], file?: string) => string[][] = parse.installCommands;
const examples: (blocks: Block[], file?: string) => Example[] = parse.examples;

const root = join(import.meta.dirname, '..');
const md = (...lines: string[]) => lines.join('\n');

describe('README examples: reading the blocks', () => {
  it('gives each fenced block its language, first line and code, and the marker before it', () => {
    const blocks = fencedBlocks(
      md(
        '# x',
        '```sh',
        'npm install a',
        '```',
        '<!-- example: continues, typecheck only: needs a server -->',
        '',
        '```TS',
        'const a = 1;',
        '```',
        '~~~ts',
        '```inner```',
        '~~~',
      ),
    );
    expect(blocks).toEqual([
      { line: 2, lang: 'sh', code: 'npm install a\n', marker: { continues: false } },
      {
        line: 7,
        lang: 'ts',
        code: 'const a = 1;\n',
        marker: { line: 5, continues: true, typecheckOnly: 'needs a server' },
      },
      { line: 10, lang: 'ts', code: '```inner```\n', marker: { continues: false } },
    ]);
  });

  it('refuses a marker it does not know, naming the file and line', () => {
    expect(() => fencedBlocks(md('<!-- example: skip -->', '```ts', 'x', '```'), 'R.md')).toThrow(
      'R.md:1: unknown example marker "skip"',
    );
    expect(() => fencedBlocks(md('<!-- example: typecheck only: -->', '```ts', '```'))).toThrow(
      /unknown example marker/,
    );
  });

  it('refuses a marker that no block follows, and a block never closed', () => {
    expect(() => fencedBlocks(md('<!-- example: continues -->', 'prose', '```ts', '```'))).toThrow(
      'README.md:1: an example marker with no block after it',
    );
    expect(() => fencedBlocks(md('```ts', '```', '<!-- example: continues -->'))).toThrow(
      /marker with no block after it/,
    );
    expect(() => fencedBlocks(md('```ts', 'const a = 1;'))).toThrow(
      'README.md:1: a code block that is never closed',
    );
  });

  it('takes the install line from the first shell block with one, not global installs or comments', () => {
    const blocks = fencedBlocks(
      md(
        '```sh',
        'pnpm demo',
        '```',
        '```sh',
        'npm install -g @x/cli     # the command',
        'npm install @x/a @x/b     # the library',
        'apt-get install bubblewrap',
        'npm i zod@3',
        '```',
        '```sh',
        'npm install later',
        '```',
      ),
    );
    expect(installCommands(blocks)).toEqual([
      ['install', '@x/a', '@x/b'],
      ['i', 'zod@3'],
    ]);
    expect(() =>
      installCommands(fencedBlocks(md('```sh', 'npm install -g x', '```')), 'R.md'),
    ).toThrow('R.md: TypeScript examples but no install line');
  });
});

describe('README examples: continuations', () => {
  const three = (second: string, third: string) =>
    examples(
      fencedBlocks(
        md(
          '```ts',
          'const a = 1;',
          '```',
          second,
          '```ts',
          'const b = a;',
          '```',
          third,
          '```ts',
          'b;',
          '```',
        ),
      ),
    );

  it('checks a continuation with every block before it and runs the chain once, at its end', () => {
    const list = three('<!-- example: continues -->', '<!-- example: continues -->');
    expect(list.map((e) => [e.line, e.chain, e.run])).toEqual([
      [1, [1], false],
      [5, [1, 5], false],
      [9, [1, 5, 9], true],
    ]);
    expect(list[2]?.code).toBe('const a = 1;\n\nconst b = a;\n\nb;\n');
  });

  it('runs a block alone when what continues it is typecheck only, and never runs what continues that', () => {
    const list = three(
      '<!-- example: continues, typecheck only: a remote server -->',
      '<!-- example: continues -->',
    );
    expect(list.map((e) => [e.line, e.run, e.reason])).toEqual([
      [1, true, undefined],
      [5, false, 'a remote server'],
      [9, false, 'a remote server'],
    ]);
  });

  it('a node marker runs the block (and what continues it) on that Node major', () => {
    const list = three('<!-- example: node 22 -->', '<!-- example: continues -->');
    expect(list.map((e) => [e.line, e.run, e.node])).toEqual([
      [1, true, undefined],
      [5, false, '22'],
      [9, true, '22'],
    ]);
    expect(() => fencedBlocks(md('<!-- example: node latest -->', '```ts', '```'))).toThrow(
      /unknown example marker "node latest"/,
    );
  });

  it('refuses a continuation with no TypeScript block before it', () => {
    expect(() =>
      examples(
        fencedBlocks(md('```sh', 'x', '```', '<!-- example: continues -->', '```ts', 'y', '```')),
      ),
    ).toThrow('README.md:5: marked "continues" but no TypeScript block comes before it');
  });
});

describe("the repository's READMEs", () => {
  const readmes = [
    'README.md',
    ...readdirSync(join(root, 'packages'))
      .map((dir) => `packages/${dir}/README.md`)
      .filter((file) => {
        try {
          readFileSync(join(root, file));
          return true;
        } catch {
          return false;
        }
      }),
  ];

  it.each(readmes)(
    '%s: every TypeScript block is an example, with an install line to run it',
    (file) => {
      const text = readFileSync(join(root, file), 'utf8');
      const blocks = fencedBlocks(text, file);
      const list = examples(blocks, file);
      const fences = text.split('\n').filter((l) => /^```(ts|typescript)\s*$/i.test(l)).length;
      expect(list).toHaveLength(fences);
      if (list.length > 0) expect(installCommands(blocks, file).length).toBeGreaterThan(0);
      // What is not run says why, in the README.
      for (const example of list)
        if (!example.run && example.reason) expect(example.reason.length).toBeGreaterThan(10);
    },
  );
});
