/**
 * The files a wrapper opens itself (`time -o`, `xargs -a`, `flock FILE`) and how a wrapper's
 * options are skipped (shell/unwrap.ts). Each case fails under a one-line change the mutation run
 * (`pnpm mutate:permission`) found surviving in unwrap.ts.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bash, makeProject } from '../../test/helpers';
import { type PermissionInterceptor, permissionInterceptor } from '../index';
import type { PermissionDecision } from '../types';

let policy: PermissionInterceptor;
beforeAll(async () => {
  const { root, home } = makeProject();
  policy = permissionInterceptor({
    cwd: root,
    home,
    rules: {
      allow: ['Bash(time:*)', 'Bash(xargs:*)', 'Bash(flock:*)', 'Bash(ls:*)', 'Bash(echo:*)'],
      deny: ['Edit(./src/**)', 'Edit(./9*)', 'Read(./.env)', 'Bash(rm:*)'],
    },
  });
  await policy.ready;
});
const explain = (line: string): Promise<PermissionDecision> => policy.explain(bash(line));

describe('files a wrapper opens', () => {
  it.each([
    'time -o src/x.txt ls',
    'time -p -o src/x.txt ls',
    'time -osrc/x.txt ls',
    'time --output=src/x.txt ls',
    'time -p --output src/x.txt ls',
  ])('%s writes the file time -o names: denied', async (line) => {
    expect((await explain(line)).behavior).toBe('deny');
  });

  it.each(['xargs -a .env echo', 'xargs --arg-file=.env echo', 'xargs -0 -a .env echo'])(
    '%s reads the file xargs -a names: denied',
    async (line) => {
      expect((await explain(line)).behavior).toBe('deny');
    },
  );

  it.each(['flock src/x9 echo hi', 'flock 9x.lock echo hi', 'flock -w 5 src/l echo hi'])(
    '%s opens (creates) its lock file: denied',
    async (line) => {
      expect((await explain(line)).behavior).toBe('deny');
    },
  );

  it('a number is a descriptor flock locks, not a file', async () => {
    expect((await explain('flock 9 echo hi')).behavior).toBe('allow');
    expect((await explain('flock 95 echo hi')).behavior).toBe('allow');
  });
});

describe('options of a wrapper', () => {
  it('an option with its value attached by = takes no word after it', async () => {
    expect((await explain('timeout --signal=KILL 5 rm -rf src')).behavior).toBe('deny');
  });

  it('eval runs its words as a line, judged like any other', async () => {
    expect((await explain('eval rm -rf src')).behavior).toBe('deny');
    const d = await explain('eval "$X"');
    expect(d.behavior).toBe('ask');
    expect(d.reason).toContain('eval runs "$X", which is not known before it runs');
  });

  it('a command name not known before it runs says so', async () => {
    const d = await explain('$CMD x');
    expect(d.behavior).toBe('ask');
    expect(d.reason).toContain('is not known before it runs (expansion or substitution)');
  });
});

describe('command runs the name after its own options', () => {
  it("an option after the name is the program's: command rm -v -rf src runs rm (shown with bash), and is denied", async () => {
    // Unguarded: bash runs rm, and src is gone.
    const { root, home } = makeProject();
    spawnSync('bash', ['-c', 'command rm -v -rf src'], { cwd: root, stdio: 'ignore' });
    expect(existsSync(join(root, 'src'))).toBe(false);
    // Guarded: the deny on rm holds, also in bypassPermissions, which runs whatever only asks.
    for (const mode of ['default', 'bypassPermissions'] as const) {
      const guard = permissionInterceptor({
        cwd: root,
        home,
        mode,
        rules: { deny: ['Bash(rm:*)'] },
      });
      await guard.ready;
      for (const line of [
        'command rm -v -rf src',
        'command -p rm -V -rf src',
        'command -- rm -v x',
      ]) {
        expect((await guard.explain(bash(line))).behavior, `${mode}: ${line}`).toBe('deny');
      }
    }
  });

  it('command -v, -V (also among its other options) only looks the name up', async () => {
    expect((await explain('command -v rm')).behavior).not.toBe('deny');
    expect((await explain('command -p -V rm')).behavior).not.toBe('deny');
  });
});

describe('coproc and env', () => {
  it.each([
    'coproc rm -rf src',
    'coproc X { rm -rf src; }',
    'coproc x1 { rm -rf src; }',
    'coproc X ( rm -rf src )',
    'coproc { rm -rf src; }',
  ])('%s runs rm: denied', async (line) => {
    expect((await explain(line)).behavior).toBe('deny');
  });

  it('a variable env gives a command passes only from the allowlist, and the question names it', async () => {
    const d = await explain('env x_y=1 echo hi');
    expect(d.behavior).toBe('ask');
    expect(d.reason).toContain('env sets x_y, which may change what the command runs or loads');
    expect((await explain('env LANG=C echo hi')).behavior).toBe('allow');
  });
});
