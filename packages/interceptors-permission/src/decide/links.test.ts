/**
 * Symbolic links reached by a glob or by a tree read that follows links. The project has
 * `src/env-link → ../.env` and `src/secrets-link → ../secrets`: no name under `src/` is one a rule
 * protects, but `cat src/*` reads `.env` through its link (bash expands the glob, cat opens each
 * match), and so do `tar -h`, `cp -rL`, `grep -R` and `rg -L` on `src`. Before, each of these was
 * allowed under `Read(./.env)`; each shape is run for real first to show what it prints or copies.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filePolicy, makeProject } from '../../test/helpers';
import { linkedGlobMatches, MAX_GLOB_ENTRIES } from './links';

const { root, home } = makeProject();
const { behaviorOf, explain } = filePolicy({
  cwd: root,
  home,
  rules: {
    allow: [
      'Read(./**)',
      'Bash(cat:*)',
      'Bash(head:*)',
      'Bash(tar:*)',
      'Bash(cp:*)',
      'Bash(echo:*)',
    ],
    deny: ['Read(./.env)', 'Read(./secrets/**)'],
  },
});
const run = (line: string) => spawnSync('bash', ['-c', line], { cwd: root, encoding: 'utf8' });

describe('a glob whose matches are links', () => {
  it('cat src/* prints .env through src/env-link (bash and cat, for real)', () => {
    expect(run('cat src/* 2>/dev/null').stdout).toContain('TOKEN=1');
  });

  it.each(['cat src/*', 'head src/e*', 'cat src/*-link', 'cat src/?nv-link', 'cat src/*/key'])(
    '%s is denied, and the reason names the link',
    async (line) => {
      const decision = await explain(line);
      expect(decision.behavior).toBe('deny');
      expect(decision.reason).toMatch(/a symbolic link or a path through one/);
    },
  );

  it('a glob that matches no link, or a program that opens nothing, is allowed', async () => {
    expect(await behaviorOf('cat src/*.ts')).toBe('allow');
    expect(await behaviorOf('cat src/a.*')).toBe('allow');
    expect(await behaviorOf('echo src/*')).toBe('allow');
  });

  it('finds the links a glob matches, and those beyond a matched directory link', () => {
    const segments = (glob: string) => `${root}/${glob}`.split('/').filter((s) => s !== '');
    expect([...linkedGlobMatches(segments('src/*')).paths].sort()).toEqual([
      `${root}/src/env-link`,
      `${root}/src/secrets-link`,
    ]);
    expect(linkedGlobMatches(segments('src/*/key')).paths).toEqual([
      `${root}/src/secrets-link/key`,
    ]);
    expect(linkedGlobMatches(segments('src/*.ts')).paths).toEqual([]);
    expect(linkedGlobMatches(segments('**/env-link')).paths).toEqual([`${root}/src/env-link`]);
    expect(linkedGlobMatches(segments('src/a.ts'))).toEqual({ paths: [], complete: true });
  });

  it('a glob over more files than it may read asks', async () => {
    const big = join(root, 'big');
    mkdirSync(big);
    for (let i = 0; i <= MAX_GLOB_ENTRIES; i++) writeFileSync(join(big, `f${i}`), '');
    const decision = await explain('cat big/*');
    expect(decision.behavior).toBe('ask');
    expect(decision.reason).toMatch(/too many to look for symbolic links/);
  });
});

describe('a tree read that follows its links', () => {
  it('tar -h and cp -rL take .env through src/env-link (for real)', () => {
    run('tar -chf /tmp/links-test.tar src 2>/dev/null; cp -rL src copy 2>/dev/null');
    expect(run('tar -xOf /tmp/links-test.tar src/env-link').stdout).toContain('TOKEN=1');
    expect(readFileSync(join(root, 'copy', 'env-link'), 'utf8')).toContain('TOKEN=1');
  });

  it.each([
    'tar -czhf out.tgz src',
    'tar --dereference -czf out.tgz src',
    'tar chf out.tar src',
    'cp -rL src out',
    'cp -R --dereference src out',
    'cp -aL src out',
  ])('%s is denied', async (line) => {
    const decision = await explain(line);
    expect(decision.behavior).toBe('deny');
    expect(decision.reason).toMatch(/read following its symbolic links/);
  });

  it('a tree read that keeps links as links is allowed', async () => {
    expect(await behaviorOf('tar -czf out.tgz src')).toBe('allow');
    expect(await behaviorOf('cp -r src out')).toBe('allow');
  });

  it('a cycle of links asks instead of looking forever', async () => {
    const loop = join(root, 'loop');
    mkdirSync(join(loop, 'a'), { recursive: true });
    symlinkSync('..', join(loop, 'a', 'up'));
    const decision = await explain('cp -rL loop out');
    expect(decision.behavior).toBe('ask');
    expect(decision.reason).toMatch(/too many files \(or links\)/);
  });
});
