/**
 * decide/links.ts and the link loops of shellOperand (judgeLinks), eighth mutation round: each case
 * fails under a change the run (`pnpm mutate:permission`) found surviving or not reached. The walk
 * meets paths through a file, dangling links and link cycles, and stops at its budget at every
 * depth; the walk's answer is checked directly where a decision cannot tell.
 */
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filePolicy, makeProject } from '../../test/helpers';
import { linkedGlobMatches, MAX_GLOB_ENTRIES } from './links';

const { root, home } = makeProject();
// A dangling link and a link to itself (stat fails with ELOOP) beside a real directory.
mkdirSync(join(root, 'odd', 'real'), { recursive: true });
writeFileSync(join(root, 'odd', 'real', 'file'), '');
symlinkSync('missing', join(root, 'odd', 'dangling'));
symlinkSync('self', join(root, 'odd', 'self'));
// One directory deep, more files than a glob may look through.
const many = join(root, 'deep', 'sub');
mkdirSync(many, { recursive: true });
for (let i = 0; i <= MAX_GLOB_ENTRIES; i++) writeFileSync(join(many, `f${i}`), '');
// A tree read following its links: src/sub holds a link to .env, harm/sub one to README.md.
symlinkSync('../../.env', join(root, 'src', 'sub', 'env2'));
mkdirSync(join(root, 'harm', 'sub'), { recursive: true });
symlinkSync('../../README.md', join(root, 'harm', 'sub', 'readme'));
// A chain of links eight deep: ch/c0/l → ch/c1, …, ch/c7/l → ch/c8.
for (let i = 0; i <= 8; i++) mkdirSync(join(root, 'ch', `c${i}`), { recursive: true });
for (let i = 0; i < 8; i++) symlinkSync(`../c${i + 1}`, join(root, 'ch', `c${i}`, 'l'));
// Two links a glob matches, in the order a directory lists them: one to a file an ask rule
// covers, then one to .env.
mkdirSync(join(root, 'mix'));
symlinkSync('../README.md', join(root, 'mix', 'a-readme'));
symlinkSync('../.env', join(root, 'mix', 'b-env'));
// Exactly as many as a glob may look through.
const exact = join(root, 'exact');
mkdirSync(exact);
for (let i = 0; i < MAX_GLOB_ENTRIES; i++) writeFileSync(join(exact, `f${i}`), '');

const { explain } = filePolicy({
  cwd: root,
  home,
  rules: {
    allow: ['Read(./**)', 'Bash(cat:*)', 'Bash(grep:*)'],
    ask: ['Read(./README.md)'],
    deny: ['Read(./.env)', 'Read(./secrets/**)'],
  },
});
const segments = (glob: string) => `${root}/${glob}`.split('/').filter((s) => s !== '');

describe('the walk of a glob', () => {
  it('a path through a file, or a directory it cannot read, holds no link', () => {
    // Taking the error of lstat (ENOTDIR) for a link, or readdir's for entries, made such a
    // path a link to judge (or threw on a made-up entry).
    expect(linkedGlobMatches(segments('odd/r*/file/x'))).toEqual({ paths: [], complete: true });
    expect(linkedGlobMatches(segments('README.md/*'))).toEqual({ paths: [], complete: true });
    expect(linkedGlobMatches(segments('README.md/**'))).toEqual({ paths: [], complete: true });
  });

  it('a dangling link or a cycle is no directory to go on into', () => {
    // Taken for a directory, `odd/*/x` went on into `odd/dangling/x` and `odd/self/x`.
    expect(linkedGlobMatches(segments('odd/*/x'))).toEqual({ paths: [], complete: true });
    // The links themselves are still found when the glob ends at them.
    expect([...linkedGlobMatches(segments('odd/*')).paths].sort()).toEqual([
      `${root}/odd/dangling`,
      `${root}/odd/self`,
    ]);
  });

  it('a fixed name after a link is judged beyond the link, there or not yet', () => {
    // Searched for among the directory's entries, a name not there yet was dropped.
    expect(linkedGlobMatches(segments('src/*/nokey')).paths).toEqual([
      `${root}/src/secrets-link/nokey`,
    ]);
  });

  it('a fixed name after a glob is looked up, not searched for among the entries', async () => {
    // Searched for, `deep/s*/f1` went through the 10,001 entries of deep/sub and asked.
    const d = await explain('cat deep/s*/f1');
    expect(d.behavior, d.reason).toBe('allow');
  });

  it.each([
    ['cat exact/f1_', 'cat exact/f1*'],
    ['cat exact/__', 'cat exact/**'],
  ])(
    '%s: a glob over exactly as many entries as it may look through is looked through',
    async (_name, line) => {
      const d = await explain(line);
      expect(d.behavior, d.reason).toBe('allow');
    },
  );

  it('of the links a glob matches, a later deny wins over an earlier ask', async () => {
    // Kept as the first finding, mix/a-readme's ask hid mix/b-env's deny.
    const d = await explain('cat mix/*');
    expect(d.behavior, d.reason).toBe('deny');
    expect(d.reason).toContain('b-env');
  });

  it('a link to a protected file is denied even after another directory asked', async () => {
    // In deep/sub the glob is past the budget (an ask); in src it meets env-link (a deny). Kept
    // as the first finding, the ask hid the deny. (`e*` cannot match .env in the project's root.)
    const d = await explain('cd deep/sub || cd src; cat e*');
    expect(d.behavior, d.reason).toBe('deny');
  });

  it.each([
    // deep/sub holds too many files to look through (an ask), src/sub a link to .env (a deny).
    'cd deep || cd src; grep -R x sub',
    // harm/sub holds a link to README.md (nothing), src/sub the link to .env.
    'cd harm || cd src; grep -R x sub',
  ])('%s: the deny of one directory is not lost to what another found', async (line) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe('deny');
  });

  it('a tree read following links eight deep asks', async () => {
    // One more level looked through, the chain's end held nothing and the read was allowed.
    const d = await explain('grep -R x ch/c0');
    expect(d.behavior, d.reason).toBe('ask');
    expect(d.reason).toMatch(/too many files \(or links\)/);
    expect((await explain('grep -R x ch/c1')).behavior).toBe('allow');
  });

  it('a glob at the root walks the root, and names what it finds from there', () => {
    // A glob in the first segment was once taken for no glob at all (`first <= 0`), and a match
    // at the root was named `//bin` or worse. The root's own links (`/bin → usr/bin` on a merged
    // /usr) are the answer; on a root without links, none.
    const atRoot = readdirSync('/', { withFileTypes: true })
      .filter((entry) => entry.isSymbolicLink())
      .map((entry) => `/${entry.name}`);
    expect([...linkedGlobMatches(['*']).paths].sort()).toEqual(atRoot.sort());
  });

  // (The names spell `*` as `_`: Stryker's vitest runner misses tests whose names hold it.)
  it.each([
    ['cat deep/_/_', 'cat deep/*/*'],
    ['cat deep/__', 'cat deep/**'],
    ['cat deep/__/_', 'cat deep/**/*'],
    ['cat deep/__/f1', 'cat deep/**/f1'],
  ])('%s looks through more entries than it may, at a depth: asked', async (_name, line) => {
    // Answering "all seen" when the budget ran out below the first level let the glob through
    // without looking at the rest for links.
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe('ask');
    expect(d.reason).toMatch(/too many to look for symbolic links/);
  });
});
