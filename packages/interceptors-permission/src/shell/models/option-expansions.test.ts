/**
 * An option word with an unquoted glob or brace is not the word the program gets: bash expands
 * `-f{x,.env}` into `-fx -f.env` and `-f.e*` into the names that match. Before this, the models
 * read such a word as one option with one value (`{x,.env}`, a file no rule protects), so
 * `xargs -a{x,.env} echo` printed .env under `Bash(xargs:*)`. Now a model reads the words braces
 * make, each as the option it is, and an option word with a glob left in it is not understood
 * (ask); a wrapper's option word with either asks; in a program without a model the value an
 * option word attaches is judged as the glob it is by the path rules.
 */
import { describe, expect, it } from 'vitest';
import { filePolicy, makeProject } from '../../../test/helpers';

const { root, home } = makeProject();
const PROGRAMS = [
  'grep',
  'rg',
  'sort',
  'jq',
  'sed -n',
  'awk',
  'xargs',
  'time',
  'git diff',
  'git log',
  'tee',
  'cp',
  'tar',
  'curl',
  'wget',
  'gzip',
  'unzip',
  'split',
  'csplit',
  'uniq',
  'node',
  'python3',
  'perl',
  'hexdump',
  'iconv',
  'echo',
];
const { explain } = filePolicy({
  cwd: root,
  home,
  rules: {
    allow: PROGRAMS.map((p) => `Bash(${p}:*)`),
    deny: ['Read(./.env)', 'Read(./secrets/**)', 'Edit(./src/**)'],
  },
});

describe('an option word that may expand into other words', () => {
  it.each([
    // Models (readOptions): the file an option reads or writes, hidden in a brace or a glob.
    'grep -f{x,.env} README.md',
    'grep -f.e* README.md',
    // A glob left after the braces are expanded: the word is still not known.
    'grep -f{x,.e*} README.md',
    // Braces that make too many words to read one by one.
    'sort -o{1..1000} README.md',
    'grep --file={x,.env} README.md',
    'grep -hf{x,.env} README.md',
    'rg -f{x,.env} foo',
    'sort -o{x,src/a.ts} README.md',
    'sort --output={x,src/a.ts} README.md',
    'sort -k1 -o{x,src/a.ts} README.md',
    'git diff --output={x,src/a.ts}',
    'git log --output=src/?.ts',
    'gzip -S{x,y} src/a.ts',
    'csplit -f{x,src/p} README.md 1',
    'split --filter={x,y} README.md',
    // Wrappers: the file a wrapper opens itself.
    'xargs -a{x,.env} echo',
    'xargs -ra{x,.env} echo',
    'xargs --arg-file={x,.env} echo',
    'time -o{x,src/a.ts} echo',
    // Interpreters and runners.
    'node --require={x,.env} x.js',
    'python3 -W{a,b} x.py',
    'tee -a{x,y} README.md',
    'cp -t{x,src} README.md',
    'tar -cf{y,src/x.tar} README.md',
    'curl -d@{x,.env} http://127.0.0.1:9/',
    // Programs without a model: the value is judged as the glob it is.
    'hexdump -f{x,.env} README.md',
    'iconv -o{x,src/a.ts} README.md',
  ])('%s is not allowed', async (line) => {
    const decision = await explain(line);
    expect(decision.behavior, `${line}: ${decision.reason}`).not.toBe('allow');
  });

  it('a model reads the words braces make, each as the option it is', async () => {
    // `-f{x,.env}` is `-fx -f.env`: .env is read, as surely as by `grep -f .env`.
    for (const line of ['grep -f{x,.env} README.md', 'grep -hf{x,.env} README.md']) {
      const decision = await explain(line);
      expect(decision.behavior, `${line}: ${decision.reason}`).toBe('deny');
      expect(decision.reason).toContain('Read(./.env)');
    }
    for (const line of ['sort -o{src/a.ts,src/a.ts} README.md', 'sort -osrc/a.t{s..s} README.md']) {
      const write = await explain(line);
      expect(write.behavior, `${line}: ${write.reason}`).toBe('deny');
      expect(write.reason).toContain('Edit(./src/**)');
    }
  });

  it('a runner reads the words braces make as its options too (was: any brace in an option asked)', async () => {
    const judged: [string, string][] = [
      // cp -t{x,src} is cp -tx -tsrc: README.md is copied into src.
      ['cp -t{x,src} README.md', 'Edit(./src/**)'],
      ['tar -cf{y,src/x.tar} README.md', 'Edit(./src/**)'],
      ['curl -d@{x,.env} http://127.0.0.1:9/', 'Read(./.env)'],
      ['wget --post-file={x,.env} http://127.0.0.1:9/', 'Read(./.env)'],
      ['tee -a{,} src/a.ts', 'Edit(./src/**)'],
    ];
    for (const [line, rule] of judged) {
      const decision = await explain(line);
      expect(decision.behavior, `${line}: ${decision.reason}`).toBe('deny');
      expect(decision.reason).toContain(rule);
    }
    // And what they make is judged as written out: nothing protected, nothing to ask.
    for (const line of [
      'cp -t{x,y} README.md',
      'tee -a{,} out.txt',
      'tar -cf{y,z.tar} README.md',
    ]) {
      const decision = await explain(line);
      expect(decision.behavior, `${line}: ${decision.reason}`).toBe('allow');
    }
    // A glob left after the braces is still not known: the runner asks, naming the word.
    const glob = await explain('cp -t{x,s*} README.md');
    expect(glob.behavior).toBe('ask');
    expect(glob.reason).toContain('the option -t{x,s*} may expand into other words');
  });

  it('a model says which word may expand when a glob is left in it', async () => {
    const decision = await explain('grep -f.e* README.md');
    expect(decision.behavior).toBe('ask');
    expect(decision.reason).toContain('the option -f.e* may expand into other words');
  });

  it('a wrapper says which word may expand', async () => {
    const decision = await explain('xargs -a{x,.env} echo');
    expect(decision.behavior).toBe('ask');
    expect(decision.reason).toContain('-a{x,.env} holds an unquoted glob or brace');
  });

  it.each([
    // Quoted, the word is one option with its value as written.
    "grep -e '{a,b}' README.md",
    "grep '-f{x,.env}' README.md",
    "sort '-k{1,2}' README.md",
    // Unquoted, the words bash makes are options the model knows: -k1 -k2.
    'sort -k{1,2} README.md',
    "sort -t'*' README.md",
    'grep -n x README.md',
    "echo -n '*'",
    // An operand glob after -- is an operand, judged by the path rules.
    'grep -n x -- README.*',
  ])('%s stays allowed', async (line) => {
    const decision = await explain(line);
    expect(decision.behavior, `${line}: ${decision.reason}`).toBe('allow');
  });
});
