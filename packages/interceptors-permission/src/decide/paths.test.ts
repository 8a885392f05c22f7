import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bash, call, makeProject } from '../../test/helpers';
import { permissionInterceptor } from '../index';
import { repositoryOf } from './paths';
import { resolveLikeKernel } from './resolve';

const GREP = { readOnly: true, paths: [{ arg: 'path', access: 'read' as const }] };
const RULES = {
  allow: ['Bash(git log:*)', 'Bash(git diff:*)', 'Bash(cat:*)', 'Bash(grep:*)', 'Bash(cd:*)'],
  deny: ['Read(./.env)', 'Read(./secrets/**)'],
};

const setup = async (git = false) => {
  const { root, home } = makeProject();
  if (git) mkdirSync(join(root, '.git'));
  const policy = permissionInterceptor({ cwd: root, home, rules: RULES });
  await policy.ready;
  return { policy, root, home };
};

describe('path decisions', () => {
  it('resolves /proc/self/cwd against the given directory, not the host process', () => {
    const { root, home } = makeProject();
    expect(resolveLikeKernel('/proc/self/cwd/.env', root, home).real).toBe(join(root, '.env'));
    expect(resolveLikeKernel('/proc/self/cwd/src/env-link', root, home).real).toBe(
      join(root, '.env'),
    );
    expect(resolveLikeKernel('/dev/fd/0', root, home).real).toBe('/dev/fd/0');
    for (const alias of [
      '/proc/self/../self/cwd/.env',
      '//proc/self/cwd/.env',
      '/proc/./thread-self/cwd/src/../.env',
      '/proc/self/root/proc/self/cwd/.env',
      `/proc/self/root${root}/.env`,
    ]) {
      expect(resolveLikeKernel(alias, root, home).real, alias).toBe(join(root, '.env'));
    }
  });

  it('a symlink to /proc/self/cwd leads to the command directory, not this process', async () => {
    const { root, home } = makeProject();
    // The test process runs elsewhere (the package directory), as a host would.
    expect(process.cwd()).not.toBe(root);
    symlinkSync('/proc/self/cwd', join(root, 'here'));
    expect(resolveLikeKernel('here/.env', root, home).real).toBe(join(root, '.env'));
    const policy = permissionInterceptor({ cwd: root, home, rules: RULES });
    await policy.ready;
    expect((await policy.explain(bash('cat here/.env'))).behavior).toBe('deny');
    expect((await policy.explain(bash('cat here/README.md'))).behavior).toBe('allow');
  });

  it('a directory given to a reading tool asks when it holds a protected path; one that does not is allowed', async () => {
    const { policy, root } = await setup();
    for (const path of ['.', './', root, 'src/..', undefined]) {
      const args = path === undefined ? { pattern: 'x' } : { pattern: 'x', path };
      const decision = await policy.explain(call('Grep', args, GREP));
      expect(decision.behavior, `${path}: ${decision.reason}`).toBe('ask');
    }
    expect((await policy.explain(call('Grep', { path: 'secrets' }, GREP))).behavior).toBe('deny');
    expect((await policy.explain(call('Grep', { path: 'src/sub' }, GREP))).behavior).toBe('allow');
  });

  it('history without a pathspec reads the repository only where there is one', async () => {
    const plain = await setup(false);
    expect(repositoryOf(plain.root)).toBeUndefined();
    expect((await plain.policy.explain(bash('git log -p'))).behavior).toBe('allow');
    const repo = await setup(true);
    expect(repositoryOf(join(repo.root, 'src'))).toBe(repo.root);
    const decision = await repo.policy.explain(bash('git log -p'));
    expect(decision.behavior).toBe('ask');
    expect(decision.reason).toContain("the repository's history");
    // Naming what it may show answers the question.
    expect((await repo.policy.explain(bash('git log -p -- src'))).behavior).toBe('allow');
    expect((await repo.policy.explain(bash('git log -p -- secrets'))).behavior).toBe('deny');
    expect((await repo.policy.explain(bash('git log --oneline'))).behavior).toBe('allow');
    // A blob by its hash may be any file ever committed; one by path is that path.
    const blob = 'git diff 4b825dc642cb6eb9a060e54bf8d69288fbee4904 HEAD:README.md';
    expect((await repo.policy.explain(bash(blob))).behavior).toBe('ask');
    expect(
      (await repo.policy.explain(bash('git diff HEAD:src/a.ts HEAD:README.md'))).behavior,
    ).toBe('allow');
  });

  it('a recursive read of a path that no longer exists may have held anything', async () => {
    const { policy, root } = await setup(true);
    writeFileSync(join(root, 'gone.txt'), 'x');
    expect((await policy.explain(bash('git log -p -- secrets/old'))).behavior).toBe('deny');
    expect((await policy.explain(bash('git diff HEAD~1 -- nowhere'))).behavior).toBe('allow');
  });

  it('a relative operand in an unknown directory asks only where a rule may apply', async () => {
    const { policy } = await setup();
    expect((await policy.explain(bash('cd "$D" && cat README.md'))).behavior).toBe('ask');
    expect((await policy.explain(bash('cd "$D" && cat /etc/hostname'))).behavior).toBe('allow');
  });
});

describe('path hints read as the sandbox reads them', () => {
  // A tool whose hints and arguments disagree (its author declared `edits.*.path`, a call sends a
  // string there): the sandbox refused such a call, permission found no path and checked nothing.
  const MULTI = { paths: [{ arg: 'edits.*.path', access: 'write' as const }] };
  const policyFor = async () => {
    const { root, home } = makeProject();
    const policy = permissionInterceptor({
      cwd: root,
      home,
      rules: { allow: ['MultiWrite'], deny: ['Edit(./secrets/**)'] },
    });
    await policy.ready;
    return policy;
  };

  it('a container of the wrong kind on the way to a path asks, naming the argument', async () => {
    const policy = await policyFor();
    // Sound calls: judged by their paths.
    expect(
      (await policy.explain(call('MultiWrite', { edits: [{ path: 'src/a' }] }, MULTI))).behavior,
    ).toBe('allow');
    expect(
      (await policy.explain(call('MultiWrite', { edits: [{ path: 'secrets/k' }] }, MULTI)))
        .behavior,
    ).toBe('deny');
    for (const edits of ['secrets/k', 42, true]) {
      const decision = await policy.explain(call('MultiWrite', { edits }, MULTI));
      expect(decision.behavior, JSON.stringify(edits)).not.toBe('allow');
      expect(decision.reason).toContain('edits.*.path');
    }
    // Absent: nothing to check, as before.
    expect((await policy.explain(call('MultiWrite', {}, MULTI))).behavior).toBe('allow');
  });
});
