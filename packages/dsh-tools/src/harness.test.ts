import { Context, Service } from '@deepseek-ai/cordis';
import SystemPrompt from '@deepseek-ai/dsh-system-prompt';
import {
  type ContentBlock,
  type InterceptedExecution,
  type ToolDefinition,
  type ToolExecution,
  type ToolExecutionResult,
  textContent,
} from '@dsh-tools/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ApprovalOutcome, type HarnessToolDefinition, ToolRegistry } from './cordis';

const boot = async () => {
  const root = new Context();
  await root.plugin(ToolRegistry, {});
  return root;
};

/** A tool of our contract that records what its body saw. */
const echo = (ran: unknown[] = []): ToolDefinition<{ text: string }> => ({
  name: 'echo',
  description: 'Echoes its text.',
  parameters: {
    type: 'object',
    properties: { text: { type: 'string', maxLength: 20 } },
    required: ['text'],
  },
  execute: (args, exec) => {
    ran.push({ args, agent: exec.agent });
    return [textContent(args.text)];
  },
});

/** A plugin that applies `apply` under its own name. */
const plugin = (name: string, apply: (ctx: Context) => void) => ({
  name,
  inject: ['tools'],
  apply,
});

const call = (args: unknown = { text: 'hi' }, extra: Partial<ToolExecution> = {}) => ({
  callId: 'c1',
  name: 'echo',
  arguments: args as ToolExecution['arguments'],
  ...extra,
});

/**
 * The `approval` service's contract as `@deepseek-ai/dsh-user-approval` publishes it. The real
 * package needs the harness's session store and an open agent turn; it runs in
 * `examples/upstream-compat`. Here a service answers with a fixed outcome and records the request.
 */
class FixedApproval extends Service {
  readonly requests: unknown[] = [];
  constructor(
    ctx: Context,
    private readonly outcome: ApprovalOutcome | Error,
  ) {
    super(ctx, 'approval');
  }
  async request(request: unknown): Promise<ApprovalOutcome> {
    this.requests.push(request);
    if (this.outcome instanceof Error) throw this.outcome;
    return this.outcome;
  }
}

describe('tools/pre-execute', () => {
  it('denies with the reason, naming the plugin; nothing inside runs', async () => {
    const root = await boot();
    const ran: unknown[] = [];
    const wrapped: string[] = [];
    await root.plugin(plugin('tools', (ctx) => ctx.tools.register(echo(ran))));
    await root.plugin(
      plugin('wrapper', (ctx) => {
        ctx.on('tools/execute', (exec, next) => {
          wrapped.push(exec.name);
          return next();
        });
      }),
    );
    await root.plugin(
      plugin('no-echo', (ctx) => {
        ctx.on('tools/pre-execute', (exec, next) =>
          exec.name === 'echo' ? { kind: 'deny', reason: 'echo is off today' } : next(),
        );
      }),
    );
    const result = await root.tools.execute(call());
    expect(result.error?.code).toBe('DENIED');
    expect(result.error?.message).toBe(
      'tool "echo" was denied by plugin "no-echo" (tools/pre-execute): echo is off today',
    );
    expect(result.content).toEqual([textContent(`Error: ${result.error?.message}`)]);
    expect(ran).toEqual([]);
    expect(wrapped).toEqual([]);
  });

  it('sees validated arguments only: an invalid call never reaches a listener', async () => {
    const root = await boot();
    const seen: unknown[] = [];
    await root.plugin(plugin('tools', (ctx) => ctx.tools.register(echo())));
    root.on('tools/pre-execute', (exec, next) => {
      seen.push(exec.arguments);
      return next();
    });
    expect((await root.tools.execute(call({ text: 7 }))).error?.code).toBe('INVALID_ARGS');
    expect(seen).toEqual([]);
  });

  it('allows when every listener passes, and runs the listeners outermost first', async () => {
    const root = await boot();
    const order: string[] = [];
    await root.plugin(plugin('tools', (ctx) => ctx.tools.register(echo())));
    for (const name of ['first', 'second']) {
      await root.plugin(
        plugin(name, (ctx) => {
          ctx.on('tools/pre-execute', async (_exec, next) => {
            order.push(name);
            return next();
          });
        }),
      );
    }
    await root.plugin(
      plugin('explicit-allow', (ctx) => {
        ctx.on('tools/pre-execute', () => ({ kind: 'allow' }));
      }),
    );
    const result = await root.tools.execute(call());
    expect(result).toEqual({ callId: 'c1', content: [textContent('hi')], isError: false });
    expect(order).toEqual(['first', 'second']);
  });

  it('fails closed, naming the plugin, on a listener that throws, calls next() twice or returns junk', async () => {
    const cases: [string, (exec: InterceptedExecution, next: () => Promise<unknown>) => unknown][] =
      [
        [
          'thrower',
          () => {
            throw new Error('policy file missing');
          },
        ],
        [
          'twice',
          async (_exec, next) => {
            await next();
            return next();
          },
        ],
        ['junk', () => ({ kind: 'perhaps' })],
        ['nothing', () => undefined],
      ];
    for (const [name, listener] of cases) {
      const root = await boot();
      const ran: unknown[] = [];
      await root.plugin(plugin('tools', (ctx) => ctx.tools.register(echo(ran))));
      await root.plugin(plugin(name, (ctx) => ctx.on('tools/pre-execute', listener as never)));
      const result = await root.tools.execute(call());
      expect(result.error?.code, name).toBe('INTERCEPTOR_ERROR');
      expect(result.error?.message, name).toContain(`"${name}"`);
      expect(ran, name).toEqual([]);
    }
  });

  it('never runs the body unless the decision is allow, whatever a listener returns', async () => {
    const root = await boot();
    const ran: unknown[] = [];
    await root.plugin(plugin('tools', (ctx) => ctx.tools.register(echo(ran))));
    let decision: unknown;
    root.on('tools/pre-execute', (() => decision) as never);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.anything(),
          fc.record({
            kind: fc.constantFrom('allow', 'deny', 'ask', 'block'),
            reason: fc.anything(),
          }),
        ),
        async (value) => {
          decision = value;
          ran.length = 0;
          const result = await root.tools.execute(call());
          const allowed =
            typeof value === 'object' &&
            value !== null &&
            (value as { kind?: unknown }).kind === 'allow';
          expect(ran.length).toBe(allowed ? 1 : 0);
          expect(result.isError).toBe(!allowed);
          if (!allowed) expect(['DENIED', 'INTERCEPTOR_ERROR']).toContain(result.error?.code);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('ask', () => {
  const asking = (reason?: string) => (_exec: InterceptedExecution, _next: unknown) => ({
    kind: 'ask' as const,
    ...(reason !== undefined && { reason }),
  });
  const agent = { id: 'agent-1', session: { events: [] } };

  it('is denied, saying so, when no approval service is loaded', async () => {
    const root = await boot();
    const ran: unknown[] = [];
    await root.plugin(plugin('tools', (ctx) => ctx.tools.register(echo(ran))));
    await root.plugin(
      plugin('asker', (ctx) => ctx.on('tools/pre-execute', asking('writes files'))),
    );
    const result = await root.tools.execute(call({ text: 'hi' }, { agent }));
    expect(result.error?.code).toBe('DENIED');
    expect(result.error?.message).toContain(
      'plugin "asker" (tools/pre-execute) asked for approval (writes files)',
    );
    expect(result.error?.message).toContain('no approval service is loaded');
    expect(ran).toEqual([]);
  });

  it('goes to ctx.approval with the agent, tool, call and reason; only allowed-once runs', async () => {
    const expected: Record<ApprovalOutcome, string | undefined> = {
      'allowed-once': undefined,
      rejected: 'the user rejected it',
      cancelled: 'withdrawn',
      unavailable: 'no approver answered',
    };
    for (const [outcome, message] of Object.entries(expected) as [ApprovalOutcome, string][]) {
      const root = await boot();
      const ran: unknown[] = [];
      await root.plugin(FixedApproval, outcome);
      await root.plugin(plugin('tools', (ctx) => ctx.tools.register(echo(ran))));
      await root.plugin(plugin('asker', (ctx) => ctx.on('tools/pre-execute', asking('why not'))));
      const signal = new AbortController().signal;
      const result = await root.tools.execute(call({ text: 'hi' }, { agent, signal }));
      const approval = root.get('approval') as FixedApproval;
      expect(approval.requests).toEqual([
        { agent, toolName: 'echo', callId: 'c1', reason: 'why not', signal },
      ]);
      expect((approval.requests[0] as { agent: unknown }).agent).toBe(agent);
      if (message === undefined) {
        expect(result.isError, outcome).toBe(false);
        expect(ran, outcome).toHaveLength(1);
      } else {
        expect(result.error?.code, outcome).toBe('DENIED');
        expect(result.error?.message, outcome).toContain(message);
        expect(ran, outcome).toEqual([]);
      }
    }
  });

  it('is denied when the call has no agent, or the approval service throws', async () => {
    const root = await boot();
    await root.plugin(FixedApproval, new Error('no open turn'));
    await root.plugin(plugin('tools', (ctx) => ctx.tools.register(echo())));
    root.on('tools/pre-execute', asking());
    const without = await root.tools.execute(call());
    expect(without.error?.code).toBe('DENIED');
    expect(without.error?.message).toContain('no agent');
    const failing = await root.tools.execute(call({ text: 'hi' }, { agent }));
    expect(failing.error?.code).toBe('DENIED');
    expect(failing.error?.message).toContain('the approval service failed (no open turn)');
  });
});

describe('guard()', () => {
  it('denies after every pre-execute listener allowed, naming the plugin; goes with it', async () => {
    const root = await boot();
    const ran: unknown[] = [];
    await root.plugin(plugin('tools', (ctx) => ctx.tools.register(echo(ran))));
    root.on('tools/pre-execute', () => ({ kind: 'allow' }));
    const fiber = await root.plugin(
      plugin('read-only', (ctx) => {
        ctx.tools.guard((exec) => (exec.arguments.text === 'rm' ? 'read-only session' : undefined));
      }),
    );
    expect((await root.tools.execute(call({ text: 'ls' }))).isError).toBe(false);
    const denied = await root.tools.execute(call({ text: 'rm' }));
    expect(denied.error?.code).toBe('DENIED');
    expect(denied.error?.message).toBe(
      'tool "echo" was denied by a guard of plugin "read-only": read-only session',
    );
    await fiber.dispose();
    expect((await root.tools.execute(call({ text: 'rm' }))).isError).toBe(false);
    expect(ran).toHaveLength(2);
  });

  it('fails closed when a guard throws or returns something that is not a reason', async () => {
    const root = await boot();
    await root.plugin(plugin('tools', (ctx) => ctx.tools.register(echo())));
    const fiber = await root.plugin(
      plugin('broken', (ctx) => {
        ctx.tools.guard(() => {
          throw new Error('config unreadable');
        });
      }),
    );
    const thrown = await root.tools.execute(call());
    expect(thrown.error?.code).toBe('DENIED');
    expect(thrown.error?.message).toContain('its guard threw (config unreadable)');
    await fiber.dispose();
    await root.plugin(plugin('odd', (ctx) => ctx.tools.guard((() => 42) as never)));
    expect((await root.tools.execute(call())).error?.message).toContain('its guard returned 42');
    expect(() => root.tools.guard('no' as never)).toThrow(/must be a function/);
  });
});

describe('tools/post-execute', () => {
  it('blocks a result with the feedback, replaces content, or accepts it', async () => {
    const root = await boot();
    await root.plugin(plugin('tools', (ctx) => ctx.tools.register(echo())));
    await root.plugin(
      plugin('reviewer', (ctx) => {
        ctx.on('tools/post-execute', async (_exec, result, next) => {
          const text = (result.content[0] as { text?: string } | undefined)?.text;
          if (text === 'secret')
            return { kind: 'block', feedback: [textContent('do not echo secrets')] };
          if (text === 'loud') return { kind: 'accept', content: [textContent('LOUD')] };
          return next();
        });
      }),
    );
    const blocked = await root.tools.execute(call({ text: 'secret' }));
    expect(blocked.error?.code).toBe('DENIED');
    expect(blocked.error?.message).toBe(
      'the result of tool "echo" was blocked by plugin "reviewer" (tools/post-execute): do not echo secrets',
    );
    expect((await root.tools.execute(call({ text: 'loud' }))).content).toEqual([
      textContent('LOUD'),
    ]);
    expect((await root.tools.execute(call({ text: 'calm' }))).content).toEqual([
      textContent('calm'),
    ]);
  });

  it('withholds the result, naming the plugin, when a listener throws or returns junk', async () => {
    for (const [name, listener] of [
      ['thrower', () => Promise.reject(new Error('reviewer down'))],
      ['junk', () => ({ kind: 'accept', content: 'not blocks' })],
      ['both', () => ({ kind: 'accept', content: [], value: 1 })],
      ['value-on-plain-tool', () => ({ kind: 'accept', value: { a: 1 } })],
    ] as const) {
      const root = await boot();
      await root.plugin(plugin('tools', (ctx) => ctx.tools.register(echo())));
      await root.plugin(plugin(name, (ctx) => ctx.on('tools/post-execute', listener as never)));
      const result = await root.tools.execute(call());
      expect(result.error?.code, name).toBe('INTERCEPTOR_ERROR');
      expect(result.error?.message, name).toContain(name);
      expect(JSON.stringify(result), name).not.toContain('"hi"');
    }
  });

  it('sees failures of the body too, but not pre-execute denials', async () => {
    const root = await boot();
    const reviewed: (string | undefined)[] = [];
    await root.plugin(
      plugin('tools', (ctx) =>
        ctx.tools.register({
          ...echo(),
          execute: () => {
            throw new Error('disk full');
          },
        }),
      ),
    );
    root.on('tools/post-execute', (_exec, result, next) => {
      reviewed.push(result.error?.code);
      return next();
    });
    expect((await root.tools.execute(call())).error?.code).toBe('TOOL_ERROR');
    root.on('tools/pre-execute', () => ({ kind: 'deny', reason: 'no' }));
    expect((await root.tools.execute(call())).error?.code).toBe('DENIED');
    expect(reviewed).toEqual(['TOOL_ERROR']);
  });
});

describe('tools/result', () => {
  it('passes the call first, then its result (the harness order)', async () => {
    const root = await boot();
    await root.plugin(plugin('tools', (ctx) => ctx.tools.register(echo())));
    const seen: [string, boolean][] = [];
    root.on('tools/result', (exec, result) => {
      seen.push([exec.name, result.isError]);
    });
    await root.tools.execute(call());
    expect(seen).toEqual([['echo', false]]);
  });
});

describe('tools/execute wrappers returning harness-shaped results', () => {
  const wrapperReturning = async (returned: unknown) => {
    const root = await boot();
    const ran: unknown[] = [];
    await root.plugin(plugin('tools', (ctx) => ctx.tools.register(echo(ran))));
    await root.plugin(
      plugin('timeout-policy', (ctx) => ctx.on('tools/execute', () => returned as never)),
    );
    return { result: await root.tools.execute(call()), ran };
  };

  it('gives a failure without callId the call id and one of our codes', async () => {
    const { result } = await wrapperReturning({
      isError: true,
      error: {
        message: 'tool timed out after 10ms',
        info: { name: 'ToolTimeoutError', code: 'TOOL_TIMEOUT' },
      },
      content: [textContent('Error: tool timed out after 10ms')],
    });
    expect(result).toEqual({
      callId: 'c1',
      isError: true,
      content: [textContent('Error: tool timed out after 10ms')],
      // Ours, and the harness's own code where the harness's loop reads it.
      error: {
        code: 'TIMEOUT',
        message: 'tool timed out after 10ms',
        details: { harnessInfo: { name: 'ToolTimeoutError', code: 'TOOL_TIMEOUT' } },
        info: { name: 'ToolTimeoutError', code: 'TOOL_TIMEOUT' },
      },
    });
  });

  it('maps codes it knows and falls back to TOOL_ERROR', async () => {
    for (const [code, ours] of [
      ['DENIED', 'DENIED'],
      ['ABORTED_BEFORE_DISPATCH', 'ABORTED'],
      ['SOMETHING_ELSE', 'TOOL_ERROR'],
      [undefined, 'TOOL_ERROR'],
    ] as const) {
      const { result } = await wrapperReturning({
        isError: true,
        error: { message: 'm', ...(code && { info: { name: 'E', code } }) },
        content: [],
      });
      expect(result.error, String(code)).toEqual({
        code: ours,
        message: 'm',
        ...(code && { details: { harnessInfo: { name: 'E', code } }, info: { name: 'E', code } }),
      });
      expect(result.content).toEqual([textContent('Error: m')]);
    }
  });

  it('adopts a success and keeps an object value as structuredContent', async () => {
    const { result } = await wrapperReturning({
      isError: false,
      value: { n: 1 },
      content: [textContent('1')],
    });
    expect(result).toEqual({
      callId: 'c1',
      isError: false,
      content: [textContent('1')],
      structuredContent: { n: 1 },
    });
  });

  it('turns whatever a wrapper returns into a well-formed result, never a throw', async () => {
    const root = await boot();
    await root.plugin(plugin('tools', (ctx) => ctx.tools.register(echo())));
    let returned: unknown;
    await root.plugin(
      plugin('wrapper', (ctx) => ctx.on('tools/execute', (() => returned) as never)),
    );
    const block = fc.record({ type: fc.constant('text'), text: fc.string() });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.anything(),
          fc.record(
            {
              isError: fc.oneof(fc.boolean(), fc.anything()),
              content: fc.oneof(fc.array(block), fc.anything()),
              error: fc.oneof(
                fc.record({ message: fc.oneof(fc.string(), fc.anything()), info: fc.anything() }),
                fc.anything(),
              ),
              value: fc.anything(),
            },
            { requiredKeys: [] },
          ),
        ),
        async (value) => {
          returned = value;
          const result = await root.tools.execute(call());
          expect(result.callId).toBe('c1');
          expect(typeof result.isError).toBe('boolean');
          expect(Array.isArray(result.content)).toBe(true);
          if (result.isError) expect(typeof result.error?.message).toBe('string');
        },
      ),
      { numRuns: 300 },
    );
  });

  it('still refuses junk and another call’s result', async () => {
    expect((await wrapperReturning({ isError: 'yes', content: [] })).result.error?.code).toBe(
      'INTERCEPTOR_ERROR',
    );
    expect(
      (await wrapperReturning({ callId: 'other', isError: false, content: [] })).result.error?.code,
    ).toBe('INTERCEPTOR_ERROR');
    const hostile = {
      get isError(): boolean {
        throw new Error('trap');
      },
    };
    expect((await wrapperReturning(hostile)).result.error?.code).toBe('INTERCEPTOR_ERROR');
  });
});

describe('an agent object on the call', () => {
  it('reaches listeners, guards and the body as the same object, never copied or frozen', async () => {
    const root = await boot();
    const ran: { agent: unknown }[] = [];
    const agent = { name: 'main', session: { events: [] as unknown[] }, ctx: root };
    const seen: unknown[] = [];
    await root.plugin(plugin('tools', (ctx) => ctx.tools.register(echo(ran as unknown[]))));
    root.on('tools/pre-execute', (exec, next) => {
      seen.push(exec.agent);
      return next();
    });
    root.tools.guard((exec) => {
      seen.push(exec.agent);
      return undefined;
    });
    root.on('tools/result', (exec) => {
      seen.push(exec.agent);
    });
    const result = await root.tools.execute(call({ text: 'hi' }, { agent }));
    expect(result.isError).toBe(false);
    expect(seen).toHaveLength(3);
    for (const a of [...seen, ran[0]?.agent]) expect(a).toBe(agent);
    expect(Object.isFrozen(agent)).toBe(false);
    agent.session.events.push('still mutable');
  });
});

/** A harness-shaped tool, as `@deepseek-ai/dsh-tools`'s `defineTool` produces it. */
const sum = (overrides: Partial<HarnessToolDefinition> = {}): HarnessToolDefinition => ({
  name: 'sum',
  description: 'Adds numbers.',
  parameters: {
    type: 'object',
    properties: { values: { type: 'array', items: { type: 'number' } } },
    required: ['values'],
  },
  output: {
    schema: {
      type: 'object',
      properties: { total: { type: 'number' } },
      required: ['total'],
      additionalProperties: false,
    },
    render: (_args, value) => [textContent(`total: ${(value as { total: number }).total}`)],
  },
  execute: async (args: { values: number[] }) => ({
    total: args.values.reduce((a, b) => a + b, 0),
  }),
  ...overrides,
});

const sumCall = (values: unknown = [1, 2, 3]) => ({
  callId: 's1',
  name: 'sum',
  arguments: { values },
});

describe('harness-shaped definitions', () => {
  it('validates the JSON value against output.schema, then renders it', async () => {
    const root = await boot();
    await root.plugin(plugin('tools', (ctx) => ctx.tools.register(sum())));
    expect(await root.tools.execute(sumCall())).toEqual({
      callId: 's1',
      isError: false,
      content: [textContent('total: 6')],
      structuredContent: { total: 6 },
      // The harness's canonical value, as its loop and plugins read it.
      value: { total: 6 },
    });
    // The model sees the schema only: no output, no presenters.
    expect(root.tools.schemas()).toEqual([
      { name: 'sum', description: 'Adds numbers.', parameters: sum().parameters },
    ]);
    expect((await root.tools.execute(sumCall(['x']))).error?.code).toBe('INVALID_ARGS');
  });

  it('fails INVALID_OUTPUT, naming the violation, on a value the schema refuses or that is not JSON', async () => {
    for (const [label, value] of [
      ['wrong type', { total: 'six' }],
      ['extra field', { total: 6, more: true }],
      ['undefined', undefined],
      ['bigint', { total: 10n }],
      [
        'cycle',
        (() => {
          const o: Record<string, unknown> = { total: 1 };
          o.self = o;
          return o;
        })(),
      ],
    ] as const) {
      const root = await boot();
      await root.plugin(
        plugin('tools', (ctx) => ctx.tools.register(sum({ execute: async () => value }))),
      );
      const result = await root.tools.execute(sumCall());
      expect(result.error?.code, label).toBe('INVALID_OUTPUT');
      expect(result.error?.message, label).toContain('tool "sum" returned');
    }
  });

  it('renders a detached copy: a body that mutates its value later changes nothing', async () => {
    const root = await boot();
    const value = { total: 1 };
    let rendered: unknown;
    await root.plugin(
      plugin('tools', (ctx) =>
        ctx.tools.register(
          sum({
            execute: async () => value,
            output: {
              ...sum().output,
              render: (_a, v) => {
                rendered = v;
                return [textContent('ok')];
              },
            },
          }),
        ),
      ),
    );
    const result = await root.tools.execute(sumCall());
    value.total = 99;
    expect(rendered).toEqual({ total: 1 });
    expect(result.structuredContent).toEqual({ total: 1 });
  });

  it('reports a render that throws or returns junk, and refuses a schema it cannot enforce', async () => {
    const root = await boot();
    await root.plugin(
      plugin('tools', (ctx) => {
        ctx.tools.register(
          sum({
            name: 'throws',
            output: {
              ...sum().output,
              render: () => {
                throw new Error('no template');
              },
            },
          }),
        );
        ctx.tools.register(
          sum({ name: 'junk', output: { ...sum().output, render: () => 'text' as never } }),
        );
      }),
    );
    const thrown = await root.tools.execute({ ...sumCall(), name: 'throws' });
    expect(thrown.error).toEqual({
      code: 'TOOL_ERROR',
      message: 'tool "throws": output.render threw (no template).',
    });
    expect((await root.tools.execute({ ...sumCall(), name: 'junk' })).error?.code).toBe(
      'INVALID_OUTPUT',
    );
    expect(() =>
      root.tools.register(
        sum({ name: 'bad', output: { ...sum().output, schema: { type: 'nonsense' } } }),
      ),
    ).toThrow(/tool "bad": output.schema cannot be enforced/);
    expect(() =>
      root.tools.register(sum({ name: 'bad2', output: { ...sum().output, schema: 'x' as never } })),
    ).toThrow(/output.schema must be a JSON Schema object/);
  });

  it('applies finalizeContent to every outcome after validation, keeps the presenters for UIs', async () => {
    const root = await boot();
    const finalized: [string, boolean][] = [];
    const presentCall = (args: unknown) => ({
      card: 'generic',
      title: `sum of ${JSON.stringify(args)}`,
    });
    await root.plugin(
      plugin('tools', (ctx) =>
        ctx.tools.register(
          sum({
            presentCall,
            finalizeContent: (exec, result) => {
              finalized.push([exec.callId, result.isError]);
              return [textContent(`${result.isError ? 'failed' : 'done'}: ${exec.name}`)];
            },
          }),
        ),
      ),
    );
    expect((await root.tools.execute(sumCall())).content).toEqual([textContent('done: sum')]);
    const off = root.on('tools/pre-execute', () => ({ kind: 'deny', reason: 'off' }));
    const denied = await root.tools.execute({ ...sumCall(), callId: 's2' });
    expect(denied.error?.code).toBe('DENIED');
    expect(denied.content).toEqual([textContent('failed: sum')]);
    off();
    expect(finalized).toEqual([
      ['s1', false],
      ['s2', true],
    ]);
    const definition = root.tools.get('sum') as unknown as HarnessToolDefinition;
    expect(definition.presentCall?.({ values: [1] })).toEqual({
      card: 'generic',
      title: 'sum of {"values":[1]}',
    });
    expect(typeof definition.output.render).toBe('function');
  });

  it('turns a finalizeContent that throws into TOOL_ERROR naming the tool', async () => {
    const root = await boot();
    await root.plugin(
      plugin('tools', (ctx) =>
        ctx.tools.register(
          sum({
            finalizeContent: () => {
              throw new Error('oops');
            },
          }),
        ),
      ),
    );
    expect((await root.tools.execute(sumCall())).error?.message).toBe(
      'tool "sum": finalizeContent threw (oops); it must not throw.',
    );
  });

  it('re-validates and re-renders a value a post-execute listener replaces', async () => {
    const root = await boot();
    await root.plugin(plugin('tools', (ctx) => ctx.tools.register(sum())));
    let replacement: unknown = { total: 42 };
    root.on('tools/post-execute', () => ({ kind: 'accept', value: replacement }) as never);
    expect((await root.tools.execute(sumCall())).content).toEqual([textContent('total: 42')]);
    replacement = { total: 'no' };
    const refused = await root.tools.execute(sumCall());
    expect(refused.error?.code).toBe('INTERCEPTOR_ERROR');
    expect(refused.error?.message).toContain('does not match its output.schema');
  });

  it('keeps our own contract beside them: enforced timeouts, argument rewrites, error codes', async () => {
    const root = await boot();
    const seen: unknown[] = [];
    await root.plugin(
      plugin('tools', (ctx) => {
        ctx.tools.register(
          sum({
            name: 'slow',
            timeoutMs: 20,
            // Ignores its signal: the registry's deadline still ends the call (after its grace).
            execute: () => new Promise(() => {}),
          }),
        );
        ctx.tools.register(
          sum({ execute: async (args: { values: number[] }) => ({ total: args.values.length }) }),
        );
      }),
    );
    root.on('tools/pre-execute', (exec, next) => {
      seen.push(exec.arguments);
      return next();
    });
    root.on('tools/execute', (exec, next) =>
      exec.name === 'sum' ? next({ ...exec, arguments: { values: [1, 1, 1, 1] } }) : next(),
    );
    const slow = await root.tools.execute({ ...sumCall(), name: 'slow' });
    expect(slow.error?.code).toBe('TIMEOUT');
    const rewritten = await root.tools.execute(sumCall([1]));
    expect(rewritten.content).toEqual([textContent('total: 4')]);
    expect(rewritten.arguments).toEqual({
      original: { values: [1] },
      effective: { values: [1, 1, 1, 1] },
    });
    root.on('tools/execute', (exec, next) =>
      exec.name === 'sum' ? next({ ...exec, arguments: { values: 'no' } }) : next(),
    );
    // A rewrite is validated again, whoever made the call.
    expect((await root.tools.execute(sumCall())).error?.code).toBe('INVALID_ARGS');
    expect(seen).toEqual([{ values: [1, 2, 3] }, { values: [1] }, { values: [1, 2, 3] }]);
  });

  it('maps isConcurrencySafe onto the concurrencySafe hint (a throw means exclusive)', async () => {
    const root = await boot();
    await root.plugin(
      plugin('tools', (ctx) =>
        ctx.tools.register(
          sum({
            isConcurrencySafe: (args) => {
              if ((args as { values: number[] }).values.length > 2) throw new Error('too many');
              return true;
            },
          }),
        ),
      ),
    );
    const safe = root.tools.get('sum')?.hints?.concurrencySafe as (args: unknown) => boolean;
    expect(safe({ values: [1] })).toBe(true);
    expect(safe({ values: [1, 2, 3] })).toBe(false);
  });
});

describe('registration in a cordis app', () => {
  it('names the plugin that holds a tool when another registers the same name', async () => {
    const root = await boot();
    await root.plugin(plugin('first-plugin', (ctx) => ctx.tools.register(echo())));
    const errors: string[] = [];
    await root.plugin(
      plugin('second-plugin', (ctx) => {
        try {
          ctx.tools.register(echo());
        } catch (error) {
          errors.push((error as Error).message);
        }
      }),
    );
    expect(errors).toEqual([
      'ctx.tools.register() in plugin "second-plugin": tool "echo" is already registered by plugin "first-plugin". Dispose that plugin first, or register this tool under another name.',
    ]);
  });

  it('forgets the holder when its plugin goes, so the name is free again', async () => {
    const root = await boot();
    const first = await root.plugin(plugin('first-plugin', (ctx) => ctx.tools.register(echo())));
    await first.dispose();
    await root.plugin(plugin('second-plugin', (ctx) => ctx.tools.register(echo())));
    expect(root.tools.has('echo')).toBe(true);
  });

  it('signals system-prompt/change on every register and dispose, and the next assembly has the tools', async () => {
    const root = new Context();
    await root.plugin(SystemPrompt, {});
    await root.plugin(ToolRegistry, {});
    let changes = 0;
    root.on('system-prompt/change', () => {
      changes++;
    });
    const fiber = await root.plugin(
      plugin('tools', (ctx) => {
        ctx.tools.register(echo());
        ctx.tools.register(sum());
      }),
    );
    expect(changes).toBe(2);
    const assembled = await root.systemPrompt.assemble();
    expect(assembled.tools.map((t) => t.name)).toEqual(['echo', 'sum']);
    await fiber.dispose();
    expect(changes).toBe(4);
    expect((await root.systemPrompt.assemble()).tools).toEqual([]);
  });

  it('signals nothing to a system prompt that is not there', async () => {
    const root = await boot();
    let changes = 0;
    root.on('system-prompt/change', () => {
      changes++;
    });
    await root.plugin(plugin('tools', (ctx) => ctx.tools.register(echo())));
    expect(changes).toBe(0);
  });
});

describe('hostile input at the new entry points', () => {
  it('bounds a huge deny reason to the message it is and never throws', async () => {
    const root = await boot();
    await root.plugin(plugin('tools', (ctx) => ctx.tools.register(echo())));
    const reason = 'x'.repeat(1_000_000);
    root.on('tools/pre-execute', () => ({ kind: 'deny', reason }));
    const result = await root.tools.execute(call());
    expect(result.error?.code).toBe('DENIED');
    expect(result.error?.message.endsWith(reason)).toBe(true);
  });

  it('refuses malformed harness definitions with a message naming the tool', () => {
    return boot().then((root) => {
      const cases: [unknown, RegExp][] = [
        [{ ...sum(), execute: 'no' }, /tool "sum" has no execute function/],
        [{ ...sum(), finalizeContent: 1 }, /finalizeContent must be a function/],
        [{ ...sum(), isConcurrencySafe: 'yes' }, /isConcurrencySafe must be a function/],
      ];
      for (const [definition, message] of cases) {
        expect(() => root.tools.register(definition as HarnessToolDefinition)).toThrow(message);
      }
    });
  });

  it('survives feedback that is not content blocks', async () => {
    const root = await boot();
    await root.plugin(plugin('tools', (ctx) => ctx.tools.register(echo())));
    root.on('tools/post-execute', () => ({
      kind: 'block',
      feedback: 'nope' as unknown as ContentBlock[],
    }));
    const result: ToolExecutionResult = await root.tools.execute(call());
    expect(result.error?.code).toBe('DENIED');
    expect(result.error?.message).toContain('no feedback given');
  });
});
