import { describe, expect, it } from 'vitest';
import {
  allowedAmong,
  filePolicy,
  makeProject,
  noSpellingAllowed,
  optionSpellings,
  type RiskyOption,
  spelledLine,
} from '../../../test/helpers';

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
    await noSpellingAllowed('more option spellings', explain, RISKY, 400);
  });

  it('every spelling of every case, once', async () => {
    const lines = RISKY.flatMap((spec) => optionSpellings(spec).map((s) => spelledLine(spec, s)));
    expect(await allowedAmong(explain, lines)).toEqual([]);
  });
});
