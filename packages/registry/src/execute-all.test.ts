import { type ToolDefinition, type ToolExecution, textContent } from '@dsh-tools/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { call as callOf, deferred, readFile } from '../test/helpers';

// A turn gives every call its own callId (executeAll refuses a repeated one).
let calls = 0;
const call = (...[name, args, extra]: Parameters<typeof callOf>) =>
  callOf(name, args, { callId: `c-${name}-${++calls}`, ...extra });

import { createToolRegistry } from './index';

/**
 * Tools that log when they start and end and finish only when the test lets them (or after a
 * tick), so overlap is observed directly, never inferred from wall-clock time.
 */
const instrumented = () => {
  const log: string[] = [];
  let running = 0;
  let peak = 0;
  const tool = (name: string, overrides: Partial<ToolDefinition> = {}): ToolDefinition =>
    readFile({
      name,
      parameters: { type: 'object', properties: { id: { type: 'string' }, n: { type: 'number' } } },
      execute: async (args) => {
        running++;
        peak = Math.max(peak, running);
        log.push(`start ${String(args.id)}`);
        await new Promise((r) => setTimeout(r, 2));
        log.push(`end ${String(args.id)}`);
        running--;
        if (args.fail) throw new Error('failed');
        return [textContent(String(args.id))];
      },
      ...overrides,
    });
  return { log, tool, peak: () => peak };
};

describe('executeAll', () => {
  it('overlaps consecutive concurrency-safe calls, bounded by maxConcurrency, in call order', async () => {
    const registry = createToolRegistry();
    const { tool, peak } = instrumented();
    registry.register(tool('grep', { hints: { concurrencySafe: true } }));
    const execs = Array.from({ length: 10 }, (_, i) => ({
      ...call('grep', { id: `g${i}` }),
      callId: `k${i}`,
    }));
    const results = await registry.executeAll(execs, { maxConcurrency: 3 });
    expect(results.map((r) => r.callId)).toEqual(execs.map((e) => e.callId));
    expect(results.map((r) => r.content)).toEqual(
      execs.map((e) => [textContent(e.arguments.id as string)]),
    );
    expect(peak()).toBe(3);
  });

  it('runs all 10 at once with the default bound', async () => {
    const registry = createToolRegistry();
    const gate = deferred();
    let started = 0;
    registry.register(
      readFile({
        name: 'slow',
        hints: { concurrencySafe: true },
        execute: async () => {
          started++;
          if (started === 10) gate.resolve();
          await gate.promise;
          return [textContent('ok')];
        },
      }),
    );
    // Resolves only if all ten bodies are running at the same time.
    const results = await registry.executeAll(
      Array.from({ length: 10 }, () => call('slow', { path: 'p' })),
    );
    expect(results.every((r) => !r.isError)).toBe(true);
  });

  it('runs every other call alone, as a barrier', async () => {
    const registry = createToolRegistry();
    const { log, tool } = instrumented();
    registry.register(tool('read', { hints: { concurrencySafe: true } }));
    registry.register(tool('write'));
    await registry.executeAll([
      call('read', { id: 'r1' }),
      call('read', { id: 'r2' }),
      call('write', { id: 'w' }),
      call('read', { id: 'r3' }),
      call('read', { id: 'r4' }),
    ]);
    const at = (entry: string) => log.indexOf(entry);
    expect(at('start r2')).toBeLessThan(at('end r1'));
    expect(at('start w')).toBeGreaterThan(Math.max(at('end r1'), at('end r2')));
    expect(at('end w')).toBeLessThan(Math.min(at('start r3'), at('start r4')));
    expect(at('start r4')).toBeLessThan(at('end r3'));
  });

  it('asks a classifier on the validated arguments; only a returned true is safe', async () => {
    const registry = createToolRegistry();
    const { log, tool } = instrumented();
    const seen: unknown[] = [];
    registry.register(
      tool('bash', {
        hints: {
          concurrencySafe: (args) => {
            seen.push(args);
            if (args.id === 'boom') throw new Error('classifier bug');
            return args.id === 'ls1' || args.id === 'ls2' ? true : ('yes' as unknown as boolean);
          },
        },
      }),
    );
    const results = await registry.executeAll([
      call('bash', { id: 'ls1' }),
      call('bash', { id: 'ls2' }),
      call('bash', { id: 'rm' }),
      call('bash', { id: 'boom' }),
      call('bash', { id: 3 }),
    ]);
    expect(results.map((r) => r.error?.code)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      'INVALID_ARGS',
    ]);
    // The invalid call never reached the classifier: it saw validated arguments only.
    expect(seen).toEqual([{ id: 'ls1' }, { id: 'ls2' }, { id: 'rm' }, { id: 'boom' }]);
    const at = (entry: string) => log.indexOf(entry);
    expect(at('start ls2')).toBeLessThan(at('end ls1'));
    expect(at('start rm')).toBeGreaterThan(at('end ls2'));
    expect(at('start boom')).toBeGreaterThan(at('end rm'));
  });

  it('never lets one failure cancel its siblings, unknown tools included', async () => {
    const registry = createToolRegistry();
    const { tool } = instrumented();
    registry.register(tool('read', { hints: { concurrencySafe: true } }));
    const results = await registry.executeAll([
      call('read', { id: 'a' }),
      call('read', { id: 'b', fail: true }),
      call('missing', {}),
      call('read', { id: 'c' }),
      { callId: 'bad' } as never,
    ]);
    expect(results.map((r) => r.error?.code)).toEqual([
      undefined,
      'TOOL_ERROR',
      'UNKNOWN_TOOL',
      undefined,
      'INVALID_ARGS',
    ]);
  });

  it('sees a tool disposed by an earlier call of the same turn as unknown', async () => {
    const registry = createToolRegistry();
    let dispose = () => {};
    registry.register(
      readFile({
        name: 'uninstall',
        execute: () => {
          dispose();
          return [textContent('bye')];
        },
      }),
    );
    dispose = registry.register(readFile({ name: 'victim', hints: { concurrencySafe: true } }));
    const results = await registry.executeAll([
      call('uninstall', { path: 'x' }),
      call('victim', { path: 'a' }),
    ]);
    expect(results.map((r) => r.error?.code)).toEqual([undefined, 'UNKNOWN_TOOL']);
  });

  it('resolves [] for input that is not a list, and never rejects', async () => {
    const registry = createToolRegistry();
    expect(await registry.executeAll(undefined as never)).toEqual([]);
    expect(await registry.executeAll(42 as never)).toEqual([]);
    expect(await registry.executeAll([], { maxConcurrency: -5 })).toEqual([]);
    // Only a real array is a list: a string is not one call per character.
    expect(await registry.executeAll('read_file' as never)).toEqual([]);
    expect(await registry.executeAll(new Set([call('read_file')]) as never)).toEqual([]);
    const trap = new Proxy([call('read_file')], {
      get: () => {
        throw new Error('trap');
      },
    });
    expect(await registry.executeAll(trap)).toEqual([]);
  });

  it('contains a failing call of a concurrent group: each body runs once, each result keeps its callId', async () => {
    const registry = createToolRegistry();
    const runs: string[] = [];
    registry.register(
      readFile({
        name: 'grep',
        hints: { concurrencySafe: true },
        parameters: { type: 'object' },
        execute: async (_args, exec) => {
          runs.push(exec.callId);
          await new Promise((r) => setTimeout(r, 2));
          return [textContent(exec.callId)];
        },
      }),
    );
    // A real AbortSignal whose addEventListener throws (patched on the instance).
    const hostile = new AbortController().signal;
    hostile.addEventListener = () => {
      throw new Error('add boom');
    };
    const results = await registry.executeAll([
      { callId: 'a', name: 'grep', arguments: {} },
      { callId: 'b', name: 'grep', arguments: {}, signal: hostile },
      { callId: 'c', name: 'grep', arguments: {} },
    ]);
    expect(results.map((r) => r.callId)).toEqual(['a', 'b', 'c']);
    expect(results[0]?.content).toEqual([textContent('a')]);
    expect(results[2]?.content).toEqual([textContent('c')]);
    expect(new Set(runs).size).toBe(runs.length);
    expect(runs).toContain('a');
    expect(runs).toContain('c');
  });

  it('runs each body at most once and answers in order with each call its own callId (property)', async () => {
    const kinds = [
      'safe',
      'unsafe',
      'throws',
      'unknown',
      'invalid',
      'aborted',
      'patched-signal',
      'fake-signal',
      'getter-args',
      'unreadable',
    ] as const;
    type Kind = (typeof kinds)[number];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...kinds), { maxLength: 12 }),
        fc.integer({ min: 1, max: 4 }),
        async (mix, maxConcurrency) => {
          const registry = createToolRegistry({ onError: () => {} });
          const runs: string[] = [];
          const body = async (_args: unknown, exec: { callId: string }) => {
            runs.push(exec.callId);
            await new Promise((r) => setTimeout(r, 1));
            if (exec.callId.endsWith('throws')) throw new Error('body failed');
            return [textContent(exec.callId)];
          };
          const parameters = { type: 'object', properties: { n: { type: 'number' } } } as const;
          registry.register({
            name: 'safe',
            description: '',
            parameters,
            execute: body,
            hints: { concurrencySafe: true },
          });
          registry.register({ name: 'unsafe', description: '', parameters, execute: body });
          const make = (kind: Kind, i: number): unknown => {
            const callId = `${i}-${kind}`;
            const base = { callId, name: i % 2 ? 'safe' : 'unsafe', arguments: { n: i } };
            switch (kind) {
              case 'safe':
                return { ...base, name: 'safe' };
              case 'unsafe':
                return { ...base, name: 'unsafe' };
              case 'throws':
                return base;
              case 'unknown':
                return { ...base, name: 'nope' };
              case 'invalid':
                return { ...base, arguments: { n: 'x' } };
              case 'aborted':
                return { ...base, signal: AbortSignal.abort() };
              case 'patched-signal': {
                const signal = new AbortController().signal;
                signal.addEventListener = () => {
                  throw new Error('add boom');
                };
                signal.removeEventListener = () => {
                  throw new Error('remove boom');
                };
                return { ...base, signal };
              }
              case 'fake-signal':
                return {
                  ...base,
                  signal: { aborted: false, addEventListener() {}, removeEventListener() {} },
                };
              case 'getter-args':
                return {
                  ...base,
                  arguments: Object.defineProperty({}, 'n', { get: () => i, enumerable: true }),
                };
              case 'unreadable':
                return new Proxy(base, {
                  get: (_t, key) => {
                    if (key === 'callId') return callId;
                    throw new Error('trap');
                  },
                });
            }
          };
          const calls = mix.map(make);
          const results = await registry.executeAll(calls as ToolExecution[], { maxConcurrency });
          expect(results.map((r) => r.callId)).toEqual(mix.map((kind, i) => `${i}-${kind}`));
          expect(new Set(runs).size).toBe(runs.length);
          mix.forEach((kind, i) => {
            const result = results[i]!;
            if (kind === 'safe' || kind === 'unsafe') {
              expect(result.content).toEqual([textContent(`${i}-${kind}`)]);
            }
          });
        },
      ),
      { numRuns: 150 },
    );
  });
});
