/**
 * resolveLikeKernelSync when the file system changes under it: a link that lstat saw and that is
 * gone (or replaced) when it is read, and errors without a code. Real files; `node:fs` is wrapped
 * only to make the race happen at that one moment every time. Written for the mutation run of
 * resolve-path.ts, whose readlink failure had no test.
 */
import * as realFs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeTree, outcome, sandboxedRegistry, type Tree } from '../test/fixtures';
import { PathResolutionError, resolveLikeKernelSync } from './resolve-path';

/** What the wrapped calls do instead of their work, once armed. */
const fault = vi.hoisted(() => ({
  /** Runs before the real readlinkSync (to remove the link, or to throw). */
  beforeReadlink: undefined as ((path: string) => void) | undefined,
  /** Thrown by lstatSync for paths ending in `/raced`. */
  lstat: undefined as unknown,
}));

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  return {
    ...fs,
    readlinkSync: ((path: string, ...rest: never[]) => {
      fault.beforeReadlink?.(String(path));
      return fs.readlinkSync(path, ...rest);
    }) as typeof fs.readlinkSync,
    lstatSync: ((path: string, ...rest: never[]) => {
      if (fault.lstat !== undefined && String(path).endsWith('/raced')) throw fault.lstat;
      return fs.lstatSync(path, ...rest);
    }) as typeof fs.lstatSync,
  };
});

let t: Tree;
beforeAll(async () => {
  t = await makeTree();
});
afterAll(() => t.cleanup());
afterEach(() => {
  fault.beforeReadlink = undefined;
  fault.lstat = undefined;
});

/** The error resolveLikeKernelSync throws for `path`, or a failure if it returns. */
function failure(path: string): PathResolutionError {
  try {
    const got = resolveLikeKernelSync(path, t.ws);
    throw new Error(`resolved to ${got}`);
  } catch (error) {
    expect(error).toBeInstanceOf(PathResolutionError);
    return error as PathResolutionError;
  }
}

describe('a link removed between lstat and readlink', () => {
  it('is a PathResolutionError naming the link and the code, not a crash', () => {
    const link = `${t.ws}/raced-link`;
    realFs.symlinkSync('file.txt', link);
    fault.beforeReadlink = (path) => {
      if (path === link) realFs.unlinkSync(path);
    };
    const error = failure('raced-link');
    expect(error.code).toBe('ENOENT');
    expect(error.message).toBe(`cannot read the link "${link}" (ENOENT)`);
  });

  it('replaced by a file: EINVAL, still refused rather than followed', () => {
    const link = `${t.ws}/raced-file`;
    realFs.symlinkSync(`${t.outside}/secret.txt`, link);
    fault.beforeReadlink = (path) => {
      if (path !== link) return;
      realFs.unlinkSync(path);
      realFs.writeFileSync(path, 'now a file\n');
    };
    expect(failure('raced-file')).toMatchObject({ code: 'EINVAL' });
  });

  it('through the interceptor, the call is vetoed with the reason', async () => {
    const link = `${t.ws}/raced-call`;
    realFs.symlinkSync(`${t.outside}/secret.txt`, link);
    fault.beforeReadlink = (path) => {
      if (path === link) realFs.unlinkSync(path);
    };
    const { call } = sandboxedRegistry({ mode: 'workspace-write', cwd: t.ws });
    const result = await call('read_file', { path: 'raced-call' });
    expect(outcome(result)).toBe('SANDBOX_VIOLATION');
    expect(result.error?.message).toContain(
      `the path cannot be resolved: cannot read the link "${link}" (ENOENT)`,
    );
  });

  it('control: without the race the same link resolves to its target', () => {
    const link = `${t.ws}/unraced`;
    realFs.symlinkSync('file.txt', link);
    expect(resolveLikeKernelSync('unraced', t.ws)).toBe(`${t.ws}/file.txt`);
  });
});

describe('an error without a code', () => {
  it('from readlink is reported as EUNKNOWN', () => {
    realFs.symlinkSync('file.txt', `${t.ws}/codeless-link`);
    fault.beforeReadlink = () => {
      throw new Error('no code');
    };
    const error = failure('codeless-link');
    expect(error.code).toBe('EUNKNOWN');
    expect(error.message).toBe(`cannot read the link "${t.ws}/codeless-link" (EUNKNOWN)`);
  });

  it('from lstat is reported as EUNKNOWN, not taken for "does not exist"', () => {
    fault.lstat = new Error('no code');
    const error = failure('raced/x');
    expect(error.code).toBe('EUNKNOWN');
    expect(error.message).toBe(`cannot inspect "${t.ws}/raced" (EUNKNOWN)`);
  });
});
