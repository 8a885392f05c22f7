import { errorResult, type Interceptor, ToolError, textContent } from '@dsh-tools/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defineRegistrySuite, type HostFactory, outcomeOf, scenarios } from './behaviour-suite';
import { cordisHost, standaloneHost } from './hosts';

defineRegistrySuite('the standalone registry', standaloneHost);
defineRegistrySuite('the cordis service (ctx.on)', cordisHost('event'));
defineRegistrySuite('the cordis service (ctx.tools.use)', cordisHost('use'));

describe('one suite, two hosts', () => {
  for (const name of Object.keys(scenarios)) {
    it(`gives identical results: ${name}`, async () => {
      const standalone = await outcomeOf(standaloneHost, name);
      expect(await outcomeOf(cordisHost('event'), name)).toEqual(standalone);
      expect(await outcomeOf(cordisHost('use'), name)).toEqual(standalone);
    });
  }
});

type Behaviour =
  | 'pass'
  | 'veto'
  | 'rewrite'
  | 'bad-rewrite'
  | 'throw'
  | 'tool-error'
  | 'twice'
  | 'junk';

const interceptorFor =
  (behaviour: Behaviour, trace: string[], name: string): Interceptor =>
  async (exec, next) => {
    trace.push(`${name}:${behaviour}:${JSON.stringify(exec.arguments)}`);
    switch (behaviour) {
      case 'pass':
        return next();
      case 'veto':
        return errorResult(exec.callId, 'DENIED', `${name} says no`);
      case 'rewrite':
        return next({ ...exec, arguments: { text: `${String(exec.arguments.text)}+${name}` } });
      case 'bad-rewrite':
        return next({ ...exec, arguments: { text: 0 } });
      case 'throw':
        throw new Error(`${name} broke`);
      case 'tool-error':
        throw new ToolError('UNAVAILABLE', `${name} is offline`);
      case 'twice':
        await next();
        return next();
      case 'junk':
        return { nope: true } as never;
    }
  };

describe('one suite, two hosts: any chain of interceptors', () => {
  it('gives identical results and traces on both hosts', async () => {
    const behaviours: Behaviour[] = [
      'pass',
      'veto',
      'rewrite',
      'bad-rewrite',
      'throw',
      'tool-error',
      'twice',
      'junk',
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...behaviours), { maxLength: 5 }),
        fc.string({ maxLength: 8 }),
        async (chain, text) => {
          const outcome = async (makeHost: HostFactory) => {
            const host = await makeHost({});
            const trace: string[] = [];
            const seen: unknown[] = [];
            await host.register({
              name: 'echo',
              description: 'Echoes its text.',
              parameters: {
                type: 'object',
                properties: { text: { type: 'string' } },
                required: ['text'],
              },
              execute: (args: { text: string }) => {
                seen.push(args);
                return [textContent(args.text)];
              },
            });
            for (const [i, behaviour] of chain.entries()) {
              const name = `i${i}`;
              await host.use(interceptorFor(behaviour, trace, name), { name });
            }
            const result = await host.execute({ callId: 'c', name: 'echo', arguments: { text } });
            await host.close();
            return JSON.parse(JSON.stringify({ result, trace, seen }));
          };
          const standalone = await outcome(standaloneHost);
          expect(await outcome(cordisHost('event'))).toEqual(standalone);
          expect(await outcome(cordisHost('use'))).toEqual(standalone);
        },
      ),
      { numRuns: 60 },
    );
  });
});
