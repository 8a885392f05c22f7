import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveHooksConfig, resolveHooksOption } from './config';
import { hooksInterceptor } from './interceptor';
import type { HooksInterceptorOptions } from './types';

const group = (hook: unknown, matcher: unknown = 'Bash') => ({
  PreToolUse: [{ matcher, hooks: [hook] }],
});

describe('resolveHooksConfig', () => {
  it('resolves both events with defaults, remembering source and place', () => {
    const resolved = resolveHooksConfig(
      {
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'a' }] }],
        PostToolUse: [{ hooks: [{ type: 'command', command: 'b', timeout: 5, onError: 'block' }] }],
        Stop: [{ hooks: [{ type: 'prompt', prompt: 'ignored: not a tool event' }] }],
      },
      '/home/u/.claude/settings.json',
    );
    expect(resolved.PreToolUse).toMatchObject([
      {
        event: 'PreToolUse',
        command: 'a',
        matcher: 'Bash',
        source: '/home/u/.claude/settings.json',
        path: 'hooks.PreToolUse[0].hooks[0]',
        timeoutSeconds: 60,
        onError: 'block',
      },
    ]);
    expect(resolved.PostToolUse).toMatchObject([
      { command: 'b', matcher: '', timeoutSeconds: 5, onError: 'block' },
    ]);
    expect(
      resolveHooksConfig({ PostToolUse: [{ hooks: [{ type: 'command', command: 'c' }] }] }, 's')
        .PostToolUse[0]?.onError,
    ).toBe('allow');
  });

  it.each([
    [null, /hooks is null; expected an object/],
    [[], /hooks is \[\]; expected an object/],
    [{ PreToolUse: {} }, /hooks\.PreToolUse is \{\}; expected an array/],
    [{ pretooluse: [] }, /spelled "PreToolUse"/],
    [{ PreToolUse: ['x'] }, /hooks\.PreToolUse\[0\] is "x"; expected \{ "matcher"/],
    [{ PreToolUse: [{ matcher: 3, hooks: [] }] }, /matcher is 3; expected a string/],
    [
      { PreToolUse: [{ matcher: 'Bash' }] },
      /hooks\.PreToolUse\[0\]\.hooks is undefined; expected an array/,
    ],
    [group({ type: 'comand', command: 'x' }), /\.type is "comand"; expected "command"/],
    [group({ type: 'prompt', prompt: 'p' }), /only command hooks run here/],
    [group({ type: 'command' }), /\.command is undefined; expected a non-empty shell command/],
    [group({ type: 'command', command: '  ' }), /\.command is " {2}"/],
    [
      group({ type: 'command', command: 'x', timeout: 0 }),
      /\.timeout is 0; expected a number of seconds/,
    ],
    [group({ type: 'command', command: 'x', timeout: '5' }), /\.timeout is "5"/],
    [
      group({ type: 'command', command: 'x', timeout: Number.POSITIVE_INFINITY }),
      /\.timeout is null/,
    ],
    [
      group({ type: 'command', command: 'x', onError: 'ignore' }),
      /\.onError is "ignore"; expected "block" or "allow"/,
    ],
  ])('refuses %j, quoting the entry and saying what is expected', (raw, message) => {
    expect(() => resolveHooksConfig(raw, 'settings.json')).toThrow(TypeError);
    expect(() => resolveHooksConfig(raw, 'settings.json')).toThrow(message);
    expect(() => resolveHooksConfig(raw, 'settings.json')).toThrow(/^Hooks from settings\.json/);
  });

  it('fails loading on an invalid regex matcher, naming it and where it is', () => {
    expect(() =>
      resolveHooksConfig(group({ type: 'command', command: 'x' }, 'Bash('), 'f.json'),
    ).toThrow(SyntaxError);
    expect(() =>
      resolveHooksConfig(group({ type: 'command', command: 'x' }, 'Bash('), 'f.json'),
    ).toThrow(
      /f\.json: hooks\.PreToolUse\[0\]\.matcher: matcher "Bash\(" is not a valid regular expression/,
    );
  });

  it('turns throwing getters and revoked proxies into a TypeError', () => {
    const hostile = {
      get PreToolUse() {
        throw new Error('getter boom');
      },
    };
    expect(() => resolveHooksConfig(hostile, 's')).toThrow(/could not be read \(getter boom\)/);
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(() => resolveHooksConfig(proxy, 's')).toThrow(TypeError);
  });

  it('copies what it validated: changing the input later changes nothing', () => {
    const hook = { type: 'command', command: 'safe' };
    const resolved = resolveHooksConfig(group(hook), 's');
    hook.command = 'evil';
    expect(resolved.PreToolUse[0]?.command).toBe('safe');
  });

  it('property: arbitrary JSON either resolves or throws a TypeError / SyntaxError, never anything else', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue(),
          fc.record(
            { PreToolUse: fc.jsonValue(), PostToolUse: fc.jsonValue() },
            { requiredKeys: [] },
          ),
          fc.record({
            PreToolUse: fc.array(
              fc.record({
                matcher: fc.oneof(fc.string(), fc.jsonValue()),
                hooks: fc.array(
                  fc.record(
                    {
                      type: fc.constantFrom('command', 'prompt', 1),
                      command: fc.oneof(fc.string(), fc.jsonValue()),
                      timeout: fc.oneof(fc.double(), fc.jsonValue()),
                    },
                    { requiredKeys: ['type'] },
                  ),
                ),
              }),
            ),
          }),
        ),
        (raw) => {
          try {
            const resolved = resolveHooksConfig(raw, 's');
            for (const hook of [...resolved.PreToolUse, ...resolved.PostToolUse]) {
              expect(typeof hook.command).toBe('string');
              expect(hook.timeoutSeconds).toBeGreaterThan(0);
            }
          } catch (error) {
            expect(error instanceof TypeError || error instanceof SyntaxError).toBe(true);
          }
        },
      ),
    );
  });
});

describe('the hooks option', () => {
  it('accepts several sources, concatenated in order', () => {
    const resolved = resolveHooksOption([
      { source: 'user', hooks: group({ type: 'command', command: 'u' }) },
      { source: 'project', hooks: group({ type: 'command', command: 'p' }) },
    ]);
    expect(resolved.PreToolUse.map((h) => [h.source, h.command])).toEqual([
      ['user', 'u'],
      ['project', 'p'],
    ]);
  });

  it('refuses a malformed source entry', () => {
    expect(() => resolveHooksOption([{ hooks: {} }])).toThrow(
      /hooks\[0\] is \{"hooks":\{\}\}; expected \{ "source"/,
    );
  });
});

describe('hooksInterceptor options', () => {
  const ok = { hooks: {} };
  it.each([
    [undefined, /options are undefined/],
    ['x', /options are "x"/],
    [{}, /option "hooks" is undefined/],
    [{ ...ok, cwd: 3 }, /option "cwd" is 3; expected a non-empty string/],
    [{ ...ok, cwd: '' }, /option "cwd" is ""/],
    [{ ...ok, sessionId: {} }, /option "sessionId" is \{\}; expected a string/],
    [{ ...ok, approve: 'yes' }, /option "approve" is "yes"; expected a function/],
    [{ ...ok, onHookRun: 1 }, /option "onHookRun" is 1; expected a function/],
    [{ ...ok, env: [] }, /option "env" is \[\]/],
    [{ ...ok, env: { A: 1 } }, /option "env\.A" is 1/],
    [{ ...ok, approveTimeoutMs: -1 }, /option "approveTimeoutMs" is -1; expected an integer/],
    [{ ...ok, approveTimeoutMs: Number.NaN }, /option "approveTimeoutMs" is null/],
    [{ ...ok, maxOutputBytes: 0 }, /option "maxOutputBytes" is 0; expected an integer/],
    [{ ...ok, maxOutputBytes: 1.5 }, /option "maxOutputBytes" is 1\.5/],
    [{ hooks: group({ type: 'command', command: 'x' }, '(') }, /not a valid regular expression/],
  ])('throws on %j', (options, message) => {
    expect(() => hooksInterceptor(options as unknown as HooksInterceptorOptions)).toThrow(message);
  });

  it('reads a hostile options object into a TypeError', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
      },
    );
    expect(() => hooksInterceptor(hostile as HooksInterceptorOptions)).toThrow(
      /options could not be read \(trap\)/,
    );
  });

  it('accepts a huge, valid configuration', () => {
    const hooks = {
      PreToolUse: Array.from({ length: 2000 }, (_, i) => ({
        matcher: `tool_${i}`,
        hooks: [{ type: 'command' as const, command: `echo ${i}` }],
      })),
    };
    expect(typeof hooksInterceptor({ hooks })).toBe('function');
  });
});
