/**
 * The staged scheduler the DeepSeek Harness's agent loop drives, as that loop drives it: prepare
 * each call in model order, overlap the bodies, finalize in model order. (The real loop runs on
 * this service in `examples/upstream-compat`.)
 */
import { Context } from '@deepseek-ai/cordis';
import { describe, expect, it } from 'vitest';
import { type HarnessShapedResult, TOOL_RUNTIME_SCHEDULER, ToolRegistry } from './cordis';

// biome-ignore lint/suspicious/noExplicitAny: the harness's shapes, read loosely
type Any = any;

/** A harness-shaped tool whose body waits `ms` (a fake timer is not needed: order is what counts). */
const sleeper = (name: string, log: string[], safe = true) => ({
  name,
  description: `${name} waits.`,
  parameters: {
    type: 'object',
    properties: { ms: { type: 'number' }, after: { type: 'string' } },
    required: ['ms'],
  },
  output: {
    schema: { type: 'number' },
    render: (_a: unknown, v: unknown) => [{ type: 'text', text: String(v) }],
  },
  ...(safe && { isConcurrencySafe: () => true }),
  execute: async (args: Any) => {
    log.push(`start ${name}:${args.ms}`);
    await new Promise((resolve) => setTimeout(resolve, args.ms));
    // `after`: ends only once that line is in the log, so an order a test asserts does not depend
    // on how fast a loaded machine runs the other body.
    while (args.after !== undefined && !log.includes(args.after)) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    log.push(`end ${name}:${args.ms}`);
    return args.ms;
  },
});

/** One group of calls the way the harness's loop runs a parallel pool (no replenishment limit). */
async function runGroup(tools: Any, calls: Any[], log: string[]) {
  const scheduler = tools[TOOL_RUNTIME_SCHEDULER];
  const slots: Any[] = [];
  const inFlight: Promise<void>[] = [];
  for (const [i, call] of calls.entries()) {
    const prepared = await scheduler.prepare(call);
    log.push(`prepared ${call.callId}:${prepared.kind}`);
    if (prepared.kind === 'dispatch') {
      inFlight.push(
        scheduler.dispatch(prepared.exec).then((d: Any) => {
          slots[i] = { exec: prepared.exec, result: d.result, post: d.kind === 'post-result' };
        }),
      );
    } else
      slots[i] = {
        exec: prepared.exec,
        result: prepared.result,
        post: prepared.kind === 'post-result',
      };
  }
  await Promise.all(inFlight);
  const results: HarnessShapedResult[] = [];
  for (const slot of slots) {
    results.push(
      slot.post
        ? await scheduler.finalize(slot.exec, slot.result)
        : scheduler.finish(slot.exec, slot.result),
    );
  }
  return results;
}

async function boot() {
  const root = new Context() as Any;
  await root.plugin(ToolRegistry, {});
  const log: string[] = [];
  await root.plugin({
    name: 'policy',
    inject: ['tools'],
    apply(ctx: Any) {
      ctx.tools.register(sleeper('slow', log));
      ctx.tools.register(sleeper('lone', log, false));
      ctx.on('tools/pre-execute', async (exec: Any, next: Any) => {
        log.push(`pre ${exec.callId}`);
        return exec.arguments.ms === 0 ? { kind: 'deny', reason: 'zero' } : next();
      });
      ctx.on('tools/post-execute', async (exec: Any, _r: unknown, next: Any) => {
        log.push(`post ${exec.callId}`);
        return next();
      });
      ctx.on('tools/result', (exec: Any) => log.push(`result ${exec.callId}`));
    },
  });
  return { root, log };
}

const call = (callId: string, name: string, ms: number, after?: string) => ({
  callId,
  name,
  arguments: after === undefined ? { ms } : { ms, after },
  signal: new AbortController().signal,
});

describe('the harness scheduler', () => {
  it('runs policy in model order, overlaps bodies, and finalizes in model order', async () => {
    const { root, log } = await boot();
    const results = await runGroup(
      root.tools,
      [
        call('c1', 'slow', 30, 'end slow:1'),
        call('c2', 'slow', 1),
        call('c3', 'slow', 0),
        call('c4', 'nope', 1),
      ],
      log,
    );
    expect(results.map((r) => r.isError)).toEqual([false, false, true, true]);
    expect(results[0]?.value).toBe(30);
    expect(results[3]?.error?.info).toEqual({ name: 'ToolNotFoundError', code: 'UNKNOWN_TOOL' });
    // A policy's denial has no info, as on the harness; ours still has its code.
    expect(results[2]?.error).toMatchObject({ code: 'DENIED' });
    expect(results[2]?.error?.info).toBeUndefined();
    // The second body ended before the first did: they overlapped (c1's body ends only after c2's,
    // so bodies run one after another would never finish and the test would time out).
    expect(log.indexOf('end slow:1')).toBeLessThan(log.indexOf('end slow:30'));
    expect(log.indexOf('start slow:1')).toBeLessThan(log.indexOf('end slow:30'));
    // Pre-execute in order, before anything later was prepared; post and result in order.
    expect(log.filter((l) => /^(pre|prepared)/.test(l))).toEqual([
      'pre c1',
      'prepared c1:dispatch',
      'pre c2',
      'prepared c2:dispatch',
      'pre c3',
      'prepared c3:post-result',
      'prepared c4:final-result',
    ]);
    expect(log.filter((l) => /^(post|result)/.test(l))).toEqual([
      'post c1',
      'result c1',
      'post c2',
      'result c2',
      'result c3',
      'result c4',
    ]);
  });

  it('classifies calls as the harness does: parallel only when the tool says so', async () => {
    const { root } = await boot();
    expect(root.tools.executionMode(call('x', 'slow', 1))).toEqual({ kind: 'parallel' });
    expect(root.tools.executionMode(call('x', 'lone', 1))).toEqual({ kind: 'exclusive' });
    expect(root.tools.executionMode(call('x', 'nope', 1))).toEqual({ kind: 'exclusive' });
    expect(root.tools.executionMode({ name: 'slow', arguments: 'not json' })).toEqual({
      kind: 'exclusive',
    });
  });

  it('says ABORTED_BEFORE_DISPATCH for a call aborted before its body', async () => {
    const { root, log } = await boot();
    const controller = new AbortController();
    controller.abort();
    const [result] = await runGroup(
      root.tools,
      [{ ...call('c1', 'slow', 5), signal: controller.signal }],
      log,
    );
    expect(result?.error?.code).toBe('ABORTED');
    expect(result?.error?.info).toEqual({ name: 'AbortError', code: 'ABORTED_BEFORE_DISPATCH' });
    expect(log.some((l) => l.startsWith('start'))).toBe(false);
  });

  it('refuses an execution it did not prepare, naming what to pass', async () => {
    const { root } = await boot();
    await expect(root.tools[TOOL_RUNTIME_SCHEDULER].dispatch({})).rejects.toThrow(
      /was not prepared by this tools service's scheduler/,
    );
  });
});

describe('a harness call as the body and the wrappers see it', () => {
  it("lets a tools/execute wrapper add a signal, never take the call's own away", async () => {
    const root = new Context() as Any;
    await root.plugin(ToolRegistry, { timeoutMs: 10_000 });
    const seen: string[] = [];
    await root.plugin({
      name: 'tools',
      inject: ['tools'],
      apply(ctx: Any) {
        ctx.tools.register({
          name: 'wait',
          description: 'Waits for its signal.',
          parameters: { type: 'object', properties: {} },
          output: {
            schema: { type: 'string' },
            render: (_a: unknown, v: string) => [{ type: 'text', text: v }],
          },
          execute: (_args: unknown, exec: Any) =>
            new Promise((resolve) => {
              seen.push(typeof exec.token, typeof exec.deferContext);
              exec.signal.addEventListener('abort', () =>
                resolve(`stopped: ${exec.signal.reason}`),
              );
            }),
        });
        // As @deepseek-ai/dsh-tool-call-timeout-policy does: its own signal for what it wraps.
        ctx.on('tools/execute', async (exec: Any, next: Any) => {
          const own = exec.signal;
          exec.signal = AbortSignal.timeout(5);
          try {
            return await next();
          } finally {
            exec.signal = own;
          }
        });
      },
    });
    const result = await root.tools.execute({ callId: 'w1', name: 'wait', arguments: {} });
    expect(seen).toEqual(['symbol', 'function']);
    expect(result.isError).toBe(false);
    expect(result.content[0].text).toMatch(/^stopped: TimeoutError/);
  });

  it('carries deferred and post-execute contexts, and drops the deferred ones of a blocked call', async () => {
    const root = new Context() as Any;
    await root.plugin(ToolRegistry, {});
    await root.plugin({
      name: 'tools',
      inject: ['tools'],
      apply(ctx: Any) {
        ctx.tools.register({
          name: 'note',
          description: 'Notes.',
          parameters: { type: 'object', properties: { block: { type: 'boolean' } } },
          output: {
            schema: { type: 'string' },
            render: (_a: unknown, v: string) => [{ type: 'text', text: v }],
            presentationMeta: (_a: unknown, v: string) => ({ card: v }),
          },
          execute: async (_args: unknown, exec: Any) => {
            exec.deferContext('deferred');
            exec.concludeTurn();
            return 'noted';
          },
        });
        ctx.on('tools/post-execute', async (exec: Any, _r: unknown, next: Any) =>
          exec.arguments.block
            ? {
                kind: 'block',
                feedback: [{ type: 'text', text: 'no' }],
                additionalContexts: ['why'],
              }
            : { ...(await next()), additionalContexts: ['reminder'] },
        );
      },
    });
    const ok = await root.tools.execute({ callId: 'n1', name: 'note', arguments: {} });
    expect(ok).toMatchObject({
      isError: false,
      value: 'noted',
      meta: { card: 'noted' },
      additionalContexts: ['deferred', 'reminder'],
      concludesTurn: true,
    });
    const blocked = await root.tools.execute({
      callId: 'n2',
      name: 'note',
      arguments: { block: true },
    });
    expect(blocked.isError).toBe(true);
    expect(blocked.additionalContexts).toEqual(['why']);
    expect(blocked.concludesTurn).toBeUndefined();
  });
});
