/**
 * Extension fields (protocol's `ToolExecutionExtensions`) on every host: a capability an
 * interceptor attaches with `next({ ...exec, probe })` reaches inner interceptors and the body as
 * the same object, whether the interceptor is a cordis `tools/execute` listener, a
 * `ctx.tools.use()` interceptor, or one of the standalone registry.
 */
import type { BodyExecution, InterceptedExecution, ToolDefinition } from '@dsh-tools/protocol';
import { textContent } from '@dsh-tools/protocol';
import { describe, expect, it } from 'vitest';
import type { HostFactory } from './behaviour-suite';
import { cordisHost, standaloneHost } from './hosts';

/** Reads an extension field without declaring it on `ToolExecutionExtensions` for every test. */
const probeOf = (exec: object): unknown => (exec as { probe?: unknown }).probe;

/** A capability with identity and state, like the sandbox's process runner. */
const makeProbe = () => ({
  calls: 0,
  touch() {
    this.calls++;
  },
});

const recorder = (seen: BodyExecution[]): ToolDefinition<{ text: string }> => ({
  name: 'echo',
  description: 'Echoes its text.',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  execute(args, exec) {
    seen.push(exec);
    (probeOf(exec) as ReturnType<typeof makeProbe> | undefined)?.touch();
    return [textContent(args.text)];
  },
});

const hosts: [string, HostFactory][] = [
  ['the cordis service, ctx.on("tools/execute")', cordisHost('event')],
  ['the cordis service, ctx.tools.use()', cordisHost('use')],
  ['the standalone registry', standaloneHost],
];

describe.each(hosts)('extensions on %s', (_name, makeHost) => {
  it('reach inner interceptors and the body by identity, through a later rewrite', async () => {
    const host = await makeHost({});
    try {
      const seen: BodyExecution[] = [];
      const inner: unknown[] = [];
      const probe = makeProbe();
      await host.register(recorder(seen));
      await host.use(
        (exec, next) => {
          const withProbe: InterceptedExecution = { ...exec, probe } as InterceptedExecution;
          return next(withProbe);
        },
        { name: 'attach' },
      );
      await host.use(
        (exec, next) => next({ ...exec, arguments: { text: `${String(exec.arguments.text)}!` } }),
        { name: 'rewrite' },
      );
      await host.use(
        (exec, next) => {
          inner.push(probeOf(exec));
          return next();
        },
        { name: 'inner' },
      );
      const result = await host.execute({ callId: 'c1', name: 'echo', arguments: { text: 'hi' } });
      expect(result.isError).toBe(false);
      expect(result.content).toEqual([textContent('hi!')]);
      expect(inner).toEqual([probe]);
      expect(inner[0]).toBe(probe);
      expect(seen).toHaveLength(1);
      expect(probeOf(seen[0] as object)).toBe(probe);
      expect(probe.calls).toBe(1);
      // An extension is never an argument.
      expect(seen[0]?.arguments).toEqual({ text: 'hi!' });
    } finally {
      await host.close();
    }
  });

  it('passes an extension the host put on the call to the body unchanged', async () => {
    const host = await makeHost({});
    try {
      const seen: BodyExecution[] = [];
      const probe = makeProbe();
      await host.register(recorder(seen));
      await host.use((_exec, next) => next(), { name: 'pass' });
      const call = { callId: 'c2', name: 'echo', arguments: { text: 'x' }, probe };
      const result = await host.execute(call);
      expect(result.isError).toBe(false);
      expect(probeOf(seen[0] as object)).toBe(probe);
    } finally {
      await host.close();
    }
  });

  it('stay on their own call: concurrent calls each see only what was attached to them', async () => {
    const host = await makeHost({});
    try {
      const seen: BodyExecution[] = [];
      await host.register(recorder(seen));
      const probes = new Map<string, ReturnType<typeof makeProbe>>();
      await host.use(
        (exec, next) => {
          const probe = makeProbe();
          probes.set(exec.callId, probe);
          return next({ ...exec, probe } as InterceptedExecution);
        },
        { name: 'attach' },
      );
      await Promise.all(
        ['a', 'b', 'c'].map((id) =>
          host.execute({ callId: id, name: 'echo', arguments: { text: id } }),
        ),
      );
      expect(seen).toHaveLength(3);
      for (const exec of seen) expect(probeOf(exec)).toBe(probes.get(exec.callId));
    } finally {
      await host.close();
    }
  });
});
