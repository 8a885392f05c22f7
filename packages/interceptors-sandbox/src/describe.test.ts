import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from './limits';
import { DEFAULT_DENY_READ, DEFAULT_DENY_WRITE } from './options';
import { createSandboxRunner } from './runner';

const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'sbx-describe-')));

describe('runner.describe()', () => {
  it('says what every process of the runner runs under', () => {
    const runner = createSandboxRunner({
      mode: 'workspace-write',
      cwd,
      denyRead: ['private/**'],
      limits: { processes: 64 },
    });
    const seen = runner.describe();
    expect(seen.mode).toBe('workspace-write');
    expect(seen.cwd).toBe(cwd);
    expect(seen.writable).toEqual([cwd]);
    expect(seen.denyRead).toEqual([...DEFAULT_DENY_READ, 'private/**']);
    expect(seen.denyWrite).toEqual([...DEFAULT_DENY_WRITE]);
    expect(seen.network).toBe(false);
    expect(seen.limits).toEqual({ ...DEFAULT_LIMITS, processes: 64 });
    expect(seen.narrowedBy).toEqual([]);
    expect(Object.isFrozen(seen) && Object.isFrozen(seen.denyRead)).toBe(true);
  });

  it('a narrowed runner shows the narrowing on top and who made it; the original is unchanged', () => {
    const runner = createSandboxRunner({ mode: 'workspace-write', cwd, network: true });
    const narrowed = runner
      .narrow({ denyRead: ['.env.local'], network: false, by: 'permission rules' })
      .narrow({ denyWrite: ['src/**'] });
    const seen = narrowed.describe();
    expect(seen.denyRead.at(-1)).toBe('.env.local');
    expect(seen.denyWrite.at(-1)).toBe('src/**');
    expect(seen.network).toBe(false);
    expect(seen.narrowedBy).toEqual(['permission rules', 'a policy']);
    expect(runner.describe().network).toBe(true);
    expect(runner.describe().narrowedBy).toEqual([]);
  });

  it('writable places follow the mode', () => {
    expect(createSandboxRunner({ mode: 'read-only', cwd }).describe().writable).toEqual([]);
    expect(createSandboxRunner({ mode: 'full-access', cwd }).describe().writable).toEqual(['/']);
  });
});
