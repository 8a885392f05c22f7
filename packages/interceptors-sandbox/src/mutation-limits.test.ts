/**
 * The `limits` option's bounds, each moved by one, and what a run with limits below the host's
 * own hard limits gets. Written where a mutation run found no test noticing a change to limits.ts.
 */
import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanUpAfterTests, makeTree, needsBwrap, SKIP_BWRAP } from '../test/fixtures';
import { createSandboxRunner, DEFAULT_LIMITS } from './index';
import { resolveLimits, ulimitArgs } from './limits';

cleanUpAfterTests();

const MiB = 1024 ** 2;
const fail = (message: string): never => {
  throw new TypeError(message);
};

/** Every limit's accepted range, as the README states it. */
const RANGES: Record<keyof typeof DEFAULT_LIMITS, [number, number]> = {
  processes: [8, 4_194_304],
  memoryBytes: [16 * MiB, 2 ** 50],
  addressSpaceBytes: [64 * MiB, 2 ** 50],
  fileSizeBytes: [4096, 2 ** 50],
  openFiles: [16, 1_048_576],
  cpuSeconds: [1, 31_536_000],
  tmpBytes: [MiB, 2 ** 50],
  shmBytes: [MiB, 2 ** 50],
};

describe('each limit is accepted at its bounds and refused one past them', () => {
  describe.each(Object.entries(RANGES))('%s', (key, [min, max]) => {
    it(`accepts ${min} and ${max}`, () => {
      expect(resolveLimits({ [key]: min }, fail)).toEqual({ ...DEFAULT_LIMITS, [key]: min });
      expect(resolveLimits({ [key]: max }, fail)).toEqual({ ...DEFAULT_LIMITS, [key]: max });
    });
    it(`refuses ${min - 1} and ${max + 1}, naming the option and the range`, () => {
      const message = `option "limits.${key}" must be an integer from ${min} to ${max}`;
      expect(() => resolveLimits({ [key]: min - 1 }, fail)).toThrow(`${message} (got ${min - 1})`);
      expect(() => resolveLimits({ [key]: max + 1 }, fail)).toThrow(`${message} (got ${max + 1})`);
    });
  });

  it('a value that is not a safe integer is refused, saying what it got', () => {
    expect(() => resolveLimits({ openFiles: 2 ** 53 }, fail)).toThrow(/limits\.openFiles/);
    expect(() => resolveLimits({ openFiles: Number.NaN }, fail)).toThrow(/got NaN/);
    expect(() => resolveLimits({ openFiles: null }, fail)).toThrow(/got object/);
  });

  it('an unknown key is refused with every known name listed', () => {
    expect(() => resolveLimits({ nofile: 64 }, fail)).toThrow(
      'unknown option "limits.nofile" (known: processes, memoryBytes, addressSpaceBytes, fileSizeBytes, openFiles, cpuSeconds, tmpBytes, shmBytes)',
    );
  });

  it('a key given as undefined keeps its default; the result cannot be changed', () => {
    const resolved = resolveLimits({ processes: undefined, openFiles: 32 }, fail);
    expect(resolved).toEqual({ ...DEFAULT_LIMITS, openFiles: 32 });
    expect(Object.isFrozen(resolved)).toBe(true);
    expect(Object.isFrozen(DEFAULT_LIMITS)).toBe(true);
  });

  it('the option given as a non-object is refused with an example', () => {
    for (const value of ['64', 64, true]) {
      expect(() => resolveLimits(value, fail)).toThrow(
        'option "limits" must be an object like { processes: 256 }',
      );
    }
  });
});

/** This process's hard limit named `name` in /proc/self/limits, or `undefined` for unlimited. */
const hostHard = (name: string): number | undefined => {
  const line = readFileSync('/proc/self/limits', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(name));
  const hard = line?.slice(26).trim().split(/\s+/)[1];
  return hard === undefined || hard === 'unlimited' ? undefined : Number(hard);
};

const HOST_FILES = hostHard('Max open files');

describe('ulimit arguments never ask for more than the host process has', () => {
  const max = Object.fromEntries(Object.entries(RANGES).map(([k, [, hi]]) => [k, hi])) as Record<
    keyof typeof DEFAULT_LIMITS,
    number
  >;
  // limits.ts reads the host's hard limits once per process and keeps them: a fresh copy of the
  // module per test reads them again, so a change to that reading is seen here.
  let hard: string[];
  let soft: string[];
  beforeEach(async () => {
    vi.resetModules();
    const fresh = await import('./limits');
    const args = fresh.ulimitArgs(max as typeof DEFAULT_LIMITS, true);
    hard = args.slice(0, args.indexOf('--'));
    soft = args.slice(args.indexOf('--') + 1);
  });
  const value = (list: string[], flag: string) => Number(list[list.indexOf(flag) + 1]);
  /** `asked`, capped at the host's hard limit `name` where there is one. */
  const capped = (asked: number, name: string) => Math.min(asked, hostHard(name) ?? asked);
  it.each([
    ['-u', 'Max processes', 'processes', 1],
    ['-n', 'Max open files', 'openFiles', 1],
    ['-v', 'Max address space', 'addressSpaceBytes', 1024],
    ['-f', 'Max file size', 'fileSizeBytes', 1024],
  ] as const)(
    '%s is capped at the host hard limit "%s" where it has one',
    (flag, name, key, unit) => {
      const expected = Math.floor(capped(max[key], name) / unit);
      expect(value(hard, flag)).toBe(expected);
      expect(value(soft, flag)).toBe(expected);
    },
  );
  it('-t is capped too: hard one second above the soft limit, the soft one at most the hard', () => {
    const cpuHard = capped(max.cpuSeconds + 1, 'Max cpu time');
    expect(value(hard, '-t')).toBe(cpuHard);
    expect(value(soft, '-t')).toBe(Math.min(max.cpuSeconds, cpuHard));
  });
  it.skipIf(HOST_FILES === undefined || HOST_FILES >= 1_048_576)(
    'and one below the host hard limit is kept as given',
    () => {
      const below = ulimitArgs({ ...DEFAULT_LIMITS, openFiles: HOST_FILES! - 1 }, true);
      expect(value(below, '-n')).toBe(HOST_FILES! - 1);
      expect(value(hard, '-n')).toBe(HOST_FILES);
    },
  );
});

describe.skipIf(SKIP_BWRAP)(needsBwrap('limits above what the host has'), () => {
  // Only where the host's hard limit is below the largest openFiles the option takes.
  it.skipIf(HOST_FILES === undefined || HOST_FILES >= 1_048_576)(
    'a limit above the host process’s own hard limit becomes that hard limit; one below stays',
    async () => {
      const hostFiles = HOST_FILES!;
      const t = await makeTree();
      const runner = (openFiles: number) =>
        createSandboxRunner({ mode: 'workspace-write', cwd: t.ws, limits: { openFiles } });
      const inside = async (openFiles: number) =>
        (
          await runner(openFiles).run(['bash', '-c', 'echo "$(ulimit -Sn) $(ulimit -Hn)"'], {
            timeoutMs: 20_000,
          })
        ).stdout.trim();
      expect(await inside(1_048_576)).toBe(`${hostFiles} ${hostFiles}`);
      expect(await inside(hostFiles - 1)).toBe(`${hostFiles - 1} ${hostFiles - 1}`);
      await t.cleanup();
    },
  );

  it('every rlimit reaches the sandboxed process, hard and soft alike', async () => {
    const t = await makeTree();
    const r = await createSandboxRunner({
      mode: 'workspace-write',
      cwd: t.ws,
      limits: {
        openFiles: 77,
        fileSizeBytes: 8 * MiB,
        addressSpaceBytes: 3 * 1024 * MiB,
        cpuSeconds: 9,
      },
    }).run(['bash', '-c', 'for o in n f v t c; do echo "$o $(ulimit -S$o) $(ulimit -H$o)"; done'], {
      timeoutMs: 20_000,
    });
    expect(r.stdout.trim().split('\n')).toEqual([
      'n 77 77',
      `f ${8 * 1024} ${8 * 1024}`,
      `v ${3 * 1024 * 1024} ${3 * 1024 * 1024}`,
      't 9 10',
      'c 0 0',
    ]);
    await t.cleanup();
  });
});
