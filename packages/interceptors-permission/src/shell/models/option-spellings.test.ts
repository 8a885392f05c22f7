/**
 * Every spelling of an option that writes, reads or runs (attached, separated, `--opt=value`,
 * abbreviated to a unique prefix, in a cluster after a harmless flag) is judged as that option, for
 * the programs models.test.ts's property does not cover, under a policy that allows each program by
 * prefix. A spelling the model misreads would be allowed: `xargs -ra.env echo` was, until this
 * property reached xargs. Seeded; the seed is printed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { filePolicy, makeProject, optionSpellings, type RiskyOption } from '../../../test/helpers';

const PROGRAMS = [
  'cp',
  'mv',
  'ln',
  'install',
  'curl',
  'wget',
  'rg',
  'git log',
  'node',
  'time',
  'xargs',
  'sort',
];
const { root, home } = makeProject();
const { explain } = filePolicy({
  cwd: root,
  home,
  rules: {
    allow: [...PROGRAMS.map((p) => `Bash(${p}:*)`), 'Bash(echo:*)'],
    deny: ['Read(./.env)', 'Read(./secrets/**)', 'Edit(./src/**)'],
  },
});

const RISKY: readonly RiskyOption[] = [
  {
    program: 'cp',
    long: 'target-directory',
    short: 't',
    flag: 'v',
    value: 'src',
    after: 'README.md',
  },
  {
    program: 'mv',
    long: 'target-directory',
    short: 't',
    flag: 'v',
    value: 'src',
    after: 'README.md',
  },
  {
    program: 'ln',
    long: 'target-directory',
    short: 't',
    flag: 's',
    value: 'src',
    after: 'README.md',
  },
  {
    program: 'install',
    long: 'target-directory',
    short: 't',
    flag: 'v',
    value: 'src',
    after: 'README.md',
  },
  {
    program: 'curl',
    long: 'output',
    short: 'o',
    flag: 's',
    value: 'src/x',
    after: 'http://127.0.0.1:9/',
  },
  {
    program: 'curl',
    long: 'config',
    short: 'K',
    flag: 's',
    value: '.env',
    after: 'http://127.0.0.1:9/',
  },
  {
    program: 'curl',
    long: 'data',
    short: 'd',
    flag: 's',
    value: '@.env',
    after: 'http://127.0.0.1:9/',
  },
  {
    program: 'curl',
    long: 'upload-file',
    short: 'T',
    flag: 's',
    value: '.env',
    after: 'http://127.0.0.1:9/',
  },
  {
    program: 'wget',
    long: 'output-file',
    short: 'o',
    flag: 'q',
    value: 'src/log',
    after: 'http://127.0.0.1:9/',
  },
  {
    program: 'wget',
    long: 'append-output',
    short: 'a',
    flag: 'q',
    value: 'src/log',
    after: 'http://127.0.0.1:9/',
  },
  { program: 'rg', long: 'file', short: 'f', flag: 'i', value: '.env', after: 'README.md' },
  { program: 'git log', long: 'output', value: 'out.txt', after: '' },
  { program: 'node', long: 'eval', short: 'e', value: "'1'", after: '', exact: true },
  { program: 'node', long: 'print', short: 'p', value: "'1'", after: '', exact: true },
  { program: 'time', long: 'output', short: 'o', flag: 'p', value: 'src/x', after: 'echo hi' },
  {
    program: 'xargs',
    long: 'arg-file',
    short: 'a',
    flag: 't',
    value: 'secrets/key',
    after: 'echo',
  },
  { program: 'sort', long: 'output', short: 'o', flag: 'n', value: 'src/x', after: 'README.md' },
  { program: 'sort', long: 'files0-from', value: '.env', after: '' },
];

describe('option spellings of more models (property)', () => {
  it('no spelling of a writing, reading or running option is allowed', async () => {
    const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
    console.log(`more option spellings: fast-check seed ${seed} (FC_SEED=${seed} replays)`);
    const cases = fc
      .constantFrom(...RISKY)
      .chain((spec) =>
        fc.record({ spec: fc.constant(spec), spelling: fc.constantFrom(...optionSpellings(spec)) }),
      );
    await fc.assert(
      fc.asyncProperty(cases, async ({ spec, spelling }) => {
        const line = `${spec.program} ${spelling} ${spec.after}`.trim();
        const decision = await explain(line);
        expect(decision.behavior, `${line}: ${decision.reason}`).not.toBe('allow');
      }),
      { seed, numRuns: 400 },
    );
  });

  it('every spelling of every case, once', async () => {
    const allowed: string[] = [];
    for (const spec of RISKY) {
      for (const spelling of optionSpellings(spec)) {
        const line = `${spec.program} ${spelling} ${spec.after}`.trim();
        if ((await explain(line)).behavior === 'allow') allowed.push(line);
      }
    }
    expect(allowed).toEqual([]);
  });
});
