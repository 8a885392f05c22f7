/**
 * Three behaviours that single-line changes once broke without a test noticing: a matcher of
 * `"|"` (refused at loading), merging duplicate hooks (a `"block"` copy keeps the merged hook blocking whatever the
 * order), and the output cap's exact boundary. Each is pinned through real hook processes where
 * the behaviour shows, and at the function that holds it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bashHook, makeTempDir, pre, setup } from '../test/helpers';
import type { ResolvedHook } from './config';
import { dedupe } from './hook-runs';
import { compileMatcher } from './matcher';
import { runHookProcess } from './run-hook';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir());
});
afterEach(async () => {
  await cleanup();
});

describe('a matcher of "|" names no tool, so loading fails (neither no tool nor every tool)', () => {
  it.each(['|', ' | ', '||', '|  |'])(
    '%j is refused with a SyntaxError saying what to write',
    (m) => {
      expect(() => compileMatcher(m)).toThrow(SyntaxError);
      expect(() => compileMatcher(m)).toThrow(
        `matcher ${JSON.stringify(m)} names no tool (only "|" and spaces); write "*"`,
      );
    },
  );

  it('a hooks block with a "|" matcher is refused, naming the source and the entry', async () => {
    const hook = await bashHook(dir, 'deny.sh', `echo '{"decision":"block","reason":"pinned"}'`);
    expect(() =>
      setup([{ source: '/p/settings.json', hooks: { PreToolUse: [pre('|', hook)] } }], {
        cwd: dir,
      }),
    ).toThrow(
      /^Hooks from \/p\/settings\.json: hooks\.PreToolUse\[0\]\.matcher: matcher "\|" names no tool/,
    );
  });

  it('a name list with an empty entry still matches only its names', () => {
    const matches = compileMatcher('Edit||Write|');
    expect([matches('Edit'), matches('Write'), matches('Bash')]).toEqual([true, true, false]);
  });

  it('"*", empty and absent still match every tool', () => {
    for (const m of ['*', '', undefined]) expect(compileMatcher(m)('Bash')).toBe(true);
  });
});

describe('duplicate hooks run once; the merged copy blocks if any copy says "block"', () => {
  const hook = (onError: 'block' | 'allow', timeoutSeconds: number, path: string): ResolvedHook =>
    ({
      event: 'PreToolUse',
      command: 'same',
      matcher: '*',
      onError,
      timeoutSeconds,
      path,
      source: 'test',
      matches: () => true,
    }) as unknown as ResolvedHook;

  it.each([
    ['allow then block', [hook('allow', 5, 'a'), hook('block', 5, 'b')]],
    ['block then allow', [hook('block', 5, 'a'), hook('allow', 5, 'b')]],
    ['block then allow with a longer timeout', [hook('block', 5, 'a'), hook('allow', 60, 'b')]],
    [
      'allow, allow with a longer timeout, block',
      [hook('allow', 5, 'a'), hook('allow', 60, 'b'), hook('block', 1, 'c')],
    ],
  ])('%s: one hook, "block", the longest timeout', (_label, hooks) => {
    const merged = dedupe(hooks);
    expect(merged).toHaveLength(1);
    expect(merged[0]?.onError).toBe('block');
    expect(merged[0]?.timeoutSeconds).toBe(Math.max(...hooks.map((h) => h.timeoutSeconds)));
    // The first copy is the one that runs (its place names it in messages).
    expect(merged[0]?.path).toBe('a');
  });

  it('two "allow" copies stay "allow"', () => {
    expect(dedupe([hook('allow', 5, 'a'), hook('allow', 9, 'b')])[0]?.onError).toBe('allow');
  });

  it.each([
    ['allow', 'block'],
    ['block', 'allow'],
  ] as const)(
    'a crashing hook configured %s then %s denies the call, run once',
    async (first, second) => {
      const marks = `${dir}/runs.txt`;
      const crash = await bashHook(dir, 'crash.sh', `echo run >> '${marks}'; exit 3`);
      const { call, bodyCalls } = setup(
        {
          PreToolUse: [
            pre('Bash', { type: 'command', command: crash, onError: first }),
            pre('Bash', { type: 'command', command: crash, onError: second }),
          ],
        },
        { cwd: dir },
      );
      const result = await call('Bash', { command: 'ls' });
      expect(result.error?.code).toBe('DENIED');
      expect(bodyCalls).toEqual([]);
      const { readFile } = await import('node:fs/promises');
      expect((await readFile(marks, 'utf8')).trim().split('\n')).toEqual(['run']);
    },
  );

  it('the same crashing hook twice with "allow" lets the call through', async () => {
    const crash = await bashHook(dir, 'crash.sh', 'exit 3');
    const { call, bodyCalls } = setup(
      {
        PreToolUse: [
          pre('Bash', { type: 'command', command: crash, onError: 'allow' }),
          pre('Bash', { type: 'command', command: crash, onError: 'allow' }),
        ],
      },
      { cwd: dir },
    );
    expect((await call('Bash', { command: 'ls' })).isError).toBe(false);
    expect(bodyCalls).toEqual([{ command: 'ls' }]);
  });
});

describe('the output cap: exactly the cap is kept, one byte more is killed', () => {
  const run = (bytes: number, cap: number, stream: 'stdout' | 'stderr') =>
    runHookProcess({
      command: `head -c ${bytes} /dev/zero | tr '\\0' x${stream === 'stderr' ? ' >&2' : ''}`,
      cwd: dir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      input: '',
      timeoutMs: 20_000,
      maxOutputBytes: cap,
    });

  it.each(['stdout', 'stderr'] as const)('%s: cap bytes pass whole', async (stream) => {
    const outcome = await run(1000, 1000, stream);
    expect(outcome.failure).toBeUndefined();
    expect(outcome[stream]).toHaveLength(1000);
    expect(outcome.exitCode).toBe(0);
  });

  it.each(['stdout', 'stderr'] as const)('%s: cap + 1 bytes is an overflow', async (stream) => {
    const outcome = await run(1001, 1000, stream);
    expect(outcome.failure?.kind).toBe('overflow');
    expect(outcome.failure?.message).toContain(`to ${stream}`);
    // What was kept never exceeds the cap.
    expect(outcome[stream].length).toBeLessThanOrEqual(1000);
  });

  it('through the interceptor, a hook printing exactly the cap is read; one byte more denies', async () => {
    const json = '{"decision":"approve"}';
    const exact = await bashHook(dir, 'exact.sh', `printf '%s' '${json}'`);
    const over = await bashHook(dir, 'over.sh', `printf '%s ' '${json}'`);
    const at = setup(
      { PreToolUse: [pre('Bash', exact)] },
      { cwd: dir, maxOutputBytes: json.length },
    );
    expect((await at.call('Bash', { command: 'ls' })).isError).toBe(false);
    const past = setup(
      { PreToolUse: [pre('Bash', over)] },
      { cwd: dir, maxOutputBytes: json.length },
    );
    const result = await past.call('Bash', { command: 'ls' });
    expect(result.error?.code).toBe('DENIED');
    expect(result.error?.message).toContain(`more than ${json.length} bytes to stdout`);
  });
});
