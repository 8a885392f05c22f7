/**
 * bubblewrap's arguments without a syscall filter: the one option that changes is the filter's.
 * Written where a mutation run found no test running bwrapArgs with `seccomp: false`.
 */
import { describe, expect, it } from 'vitest';
import { bwrapArgs, SECCOMP_FD } from './bwrap-args';
import { DEFAULT_LIMITS } from './limits';

describe('bwrapArgs with and without the seccomp pipe', () => {
  const plan = {
    mode: 'workspace-write' as const,
    network: false,
    emptied: ['/tmp', '/run'],
    writableRoots: ['/w'],
    readonlyBinds: [],
    masks: { hideDirs: [], hideFiles: ['/w/.env'], freeze: [] },
    pins: [],
    limits: DEFAULT_LIMITS,
    seccomp: true,
    cwd: '/w',
    argv: ['true'],
  };

  it('differ only by --seccomp and its descriptor', () => {
    const withFilter = bwrapArgs(plan);
    const at = withFilter.indexOf('--seccomp');
    expect(withFilter[at + 1]).toBe(String(SECCOMP_FD));
    const expected = [...withFilter.slice(0, at), ...withFilter.slice(at + 2)];
    expect(bwrapArgs({ ...plan, seccomp: false })).toEqual(expected);
  });
});
