/**
 * Code Mode for a Python code runtime: the declarations the model programs against are the same
 * bytes on our service as on upstream's, for the real tool plugins and for any JSON Schema (a
 * property test against upstream's own renderer), and `run_code` says it takes Python.
 *
 * No Python code runtime is published for the harness (the seam's README: only `'typescript'`
 * has a backend), so these services get a stand-in that reports `language: 'python'`; a real
 * CPython runs programs against our SDK in packages/dsh-tools' code-mode-python.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Context, Service } from '@deepseek-ai/cordis';
import { AgentRegistry } from '@deepseek-ai/dsh-agent';
import LocalBashExecutor from '@deepseek-ai/dsh-bash-local';
import LocalFileSystem from '@deepseek-ai/dsh-fs-local';
import GoalService from '@deepseek-ai/dsh-goal';
import { SessionStore } from '@deepseek-ai/dsh-session';
import * as ShellEnv from '@deepseek-ai/dsh-shell-env';
import LocalSubprocessRuntime from '@deepseek-ai/dsh-subprocess-local';
import SystemPrompt from '@deepseek-ai/dsh-system-prompt';
import * as ToolAskUser from '@deepseek-ai/dsh-tool-ask-user';
import * as ToolBash from '@deepseek-ai/dsh-tool-bash';
import * as ToolFs from '@deepseek-ai/dsh-tool-fs';
import * as ToolFsSearch from '@deepseek-ai/dsh-tool-fs-search';
import * as ToolGoal from '@deepseek-ai/dsh-tool-goal';
import * as ToolJobs from '@deepseek-ai/dsh-tool-jobs';
import * as ToolTodo from '@deepseek-ai/dsh-tool-todo';
import * as upstream from '@deepseek-ai/dsh-tools';
import { ToolRuntime } from '@deepseek-ai/dsh-tools';
import UserQuestionService from '@deepseek-ai/dsh-user-questions';
import { ToolRegistry } from 'dsh-tools/cordis';
// Not yet re-exported by dsh-tools/harness (upstream exports both from its root).
import { jsonSchemaToPy, renderToolsSdkPy } from 'dsh-tools/harness';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { HostName } from '../test/hosts';

// biome-ignore lint/suspicious/noExplicitAny: both services' contexts, typed loosely here
type Any = any;

/** A code runtime that says it runs Python: what the SDK and run_code's wording switch on. */
class PythonRuntime extends Service {
  readonly language = 'python';
  constructor(ctx: Context) {
    super(ctx, 'codeRuntime');
  }
  async run() {
    return { logs: [], error: { kind: 'exception', message: 'not a runtime' } };
  }
}

/** The job registry seam, as far as the jobs tools use it to register (no job ever runs here). */
class NoJobs extends Service {
  constructor(ctx: Context) {
    super(ctx, 'jobs');
  }
  attachController() {}
  onJobDone() {
    return () => {};
  }
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** `name`'s service in code mode with the real tool plugins (each one that registers tools). */
async function withToolPlugins(name: HostName) {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-py-sdk-'));
  const app = new Context() as Any;
  cleanups.push(
    () => app.fiber.dispose(),
    () => rmSync(dir, { recursive: true, force: true }),
  );
  await app.plugin(SystemPrompt, {});
  await app.plugin(AgentRegistry);
  await app.plugin(SessionStore);
  await app.plugin(PythonRuntime);
  await app.plugin(name === 'upstream' ? ToolRuntime : ToolRegistry, { mode: 'code' });
  await app.plugin(LocalFileSystem, { cwd: dir });
  await app.plugin(GoalService, {});
  await app.plugin(LocalSubprocessRuntime, {});
  await app.plugin(LocalBashExecutor, {});
  await app.plugin(ShellEnv, { dshHome: dir });
  await app.plugin(NoJobs);
  await app.plugin(UserQuestionService, {});
  for (const [plugin, config] of [
    [ToolFs, {}],
    [ToolFsSearch, { sampleOverCapGlobResults: false }],
    [ToolBash, { enableRunInBackground: true }],
    [ToolJobs, {}],
    [ToolAskUser, {}],
    [ToolTodo, { allowParallelInProgress: false }],
    [ToolGoal, {}],
  ] as const) {
    await app.plugin(plugin as Any, config);
  }
  return app;
}

/** The declarations block of an SDK section (the prose above it is each service's own). */
const declarations = (sdk: string): string => sdk.slice(sdk.indexOf('```python'));

describe('Code Mode with a Python code runtime', () => {
  it('declares the real tool plugins in the same Python as upstream, byte for byte', async () => {
    const offered: Record<string, Any> = {};
    for (const name of ['upstream', 'ours'] as const) {
      const app = await withToolPlugins(name);
      const assembled = await app.systemPrompt.assemble({});
      const sdk = assembled.sections.find((s: Any) => s.name === 'tools:sdk')?.text as string;
      const [runCode] = assembled.tools;
      offered[name] = { sdk, runCode, declared: app.tools.schemas().length };
    }
    const ours = declarations(offered.ours.sdk);
    expect(ours).toBe(declarations(offered.upstream.sdk));
    // Every plugin's tools are in it (one method each), and their shapes as TypedDicts.
    const methods = [...ours.matchAll(/^ {4}async def (\w+)/gm)].map((m) => m[1]);
    expect(methods).toEqual(
      expect.arrayContaining(['bash', 'edit', 'glob', 'grep', 'read', 'todo_write', 'write']),
    );
    expect(methods.length).toBeGreaterThanOrEqual(11);
    expect(ours).toMatch(/^class ReadArgs\(TypedDict\):$/m);
    // run_code tells the model its code is Python, as upstream's does (in our words).
    expect(offered.ours.runCode.name).toBe('run_code');
    expect(offered.ours.runCode.description).toMatch(/Python program/);
    expect(offered.ours.runCode.parameters.properties.code.description).toMatch(/async Python/);
    expect(offered.upstream.runCode.description).toMatch(/Python program/);
  });

  // Schemas as tools define them, inside the harness's subset and outside it, with the names,
  // texts and values Python is awkward about.
  const names = fc.oneof(
    { arbitrary: fc.stringMatching(/^[a-z][a-z_]{0,5}$/), weight: 6 },
    fc.constantFrom(
      'class',
      'lambda',
      'match',
      'type',
      '_',
      '__debug__',
      '__token',
      '__init__',
      '_hidden',
      'a-b',
      'two words',
      '1st',
      '路径',
      'ﬁeld',
      'ǆx',
      'a\u200cb',
      '\u0301x',
      'Ⅻ',
      'x\u{10570}',
    ),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 3 }),
  );
  const texts = fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary', maxLength: 8 }),
    fc.constantFrom(
      'say "hi"',
      'ends in a backslash \\',
      'ends in a quote "',
      '"""triple"""',
      "'''single'''",
      'two\nlines\r\n',
      'nul \u0000 here',
      'lone \ud800 surrogate',
      'C1 \u0085 and \u0096',
      'separators \u2028\u2029',
      '   ',
      '# not a comment',
    ),
  );
  const numbers = fc.oneof(
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(2 ** 53, 2 ** 60, 1e21, 1.5, -0, 0.1),
  );
  /** A scalar schema with an enum, a const, both (the const one of the enum or not), or neither. */
  const constrained = (type: string, values: unknown[], one: unknown, shape: number) =>
    [
      { type },
      { type, enum: values },
      { type, const: one },
      { type, enum: values, const: values.length > 0 && shape % 2 === 0 ? values[0] : one },
    ][shape];
  const annotations = fc.record(
    { description: texts, title: texts, default: fc.jsonValue(), examples: fc.jsonValue() },
    { requiredKeys: [] },
  );
  const scalar = fc.oneof(
    fc
      .tuple(fc.array(texts, { maxLength: 3 }), texts, fc.nat(3))
      .map(([values, one, shape]) => constrained('string', values, one, shape)),
    fc
      .tuple(
        fc.constantFrom('number', 'integer'),
        fc.array(numbers, { maxLength: 3 }),
        numbers,
        fc.nat(3),
      )
      .map(([type, values, one, shape]) => constrained(type, values, one, shape)),
    fc.record(
      { type: fc.constant('boolean'), const: fc.boolean(), enum: fc.array(fc.boolean()) },
      { requiredKeys: ['type'] },
    ),
    fc.record({ type: fc.constant('null'), enum: fc.constant([null]) }, { requiredKeys: ['type'] }),
  );
  const { schema, object } = fc.letrec((tie) => ({
    schema: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.tuple(scalar, annotations).map(([s, a]) => ({ ...a, ...s })),
      fc.record({ type: fc.constant('array'), items: tie('schema') }, { requiredKeys: ['type'] }),
      tie('object'),
      fc.record({ oneOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
      // Outside the subset, as MCP servers and hand-written tools send them.
      fc.constantFrom(
        { anyOf: [{ type: 'string' }, { type: 'null' }] },
        { $ref: '#/definitions/x', definitions: { x: { type: 'string' } } },
        { type: ['string', 'null'] },
        { type: 'string', nullable: true },
        { type: 'object', additionalProperties: { type: 'string' } },
        { type: 'string', format: 'uri' },
        { type: 'string', oneOf: [{ const: 'a' }, { const: 'b' }] },
        { const: 'a' },
        {},
        { description: 'annotations only' },
      ),
    ),
    object: fc
      .record(
        {
          type: fc.constant('object'),
          properties: fc.dictionary(names, tie('schema'), { maxKeys: 4 }),
          additionalProperties: fc.boolean(),
          description: texts,
          required: fc.constant(true),
        },
        { requiredKeys: ['type'] },
      )
      .chain((node) =>
        // `required` names a subset of the properties (now and then one that is not there).
        fc
          .tuple(fc.subarray(Object.keys(node.properties ?? {})), fc.nat(9))
          .map(([some, roll]) => (roll === 0 ? [...some, 'absent'] : some))
          .map((required) => {
            const { required: wanted, ...rest } = node;
            return wanted ? { ...rest, required } : rest;
          }),
      ),
  }));

  it('renders any schema as upstream does (property test against its renderer)', () => {
    const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
    console.log(`fast-check seed ${seed}`);
    const tool = fc.record({
      name: names,
      description: texts,
      // Tools take objects; now and then anything.
      parameters: fc.oneof({ arbitrary: object, weight: 3 }, schema),
      output: schema,
    });
    fc.assert(
      fc.property(
        schema,
        fc.uniqueArray(tool, { maxLength: 4, selector: (t) => t.name }),
        (one, tools) => {
          expect(jsonSchemaToPy(one)).toBe(upstream.jsonSchemaToPy(one));
          expect(declarations(renderToolsSdkPy(tools))).toBe(
            declarations(upstream.renderToolsSdkPy(tools as never)),
          );
        },
      ),
      { seed, numRuns: 500 },
    );
  });

  it('declares each awkward name and text as upstream does, as a tool and as a field', () => {
    const awkward = fc.sample(fc.tuple(names, texts), { seed: 7, numRuns: 200 });
    const cases = [
      ...awkward,
      ...['class', '__debug__', '__token', '__init__', '_hidden', 'match', 'ﬁeld', 'a\u200cb'].map(
        (name) => [name, 'say "hi" \\ """'] as const,
      ),
    ];
    for (const [name, text] of cases) {
      const field = { type: 'string', description: text };
      const tool = {
        name,
        description: text,
        parameters: { type: 'object', properties: { [name]: field, ok: field }, required: [name] },
        output: { type: 'object', additionalProperties: false, properties: { [name]: field } },
      };
      expect(declarations(renderToolsSdkPy([tool])), name).toBe(
        declarations(upstream.renderToolsSdkPy([tool] as never)),
      );
    }
  });

  it('renders deep and long schemas as upstream does (list nesting, name caps, collisions)', () => {
    const nest = (depth: number, wrap: (inner: object, i: number) => object) => {
      let node: object = { type: 'string' };
      for (let i = 0; i < depth; i++) node = wrap(node, i);
      return node;
    };
    const lists = nest(200, (items) => ({ type: 'array', items }));
    const objects = nest(150, (inner, i) => ({
      type: 'object',
      properties: { [`field_${i % 3}`]: inner },
      required: [`field_${i % 3}`],
    }));
    const unions = nest(60, (inner, i) => ({
      oneOf: [{ type: 'object', properties: { [`f${i % 2}`]: { type: 'null' } } }, inner],
    }));
    const tools = [lists, objects, unions].map((parameters, i) => ({
      name: ['deep', 'deep-2', 'deep_2'][i] as string,
      description: '',
      parameters: { type: 'object', properties: { x: parameters } },
      output: parameters,
    }));
    expect(jsonSchemaToPy(lists)).toBe(upstream.jsonSchemaToPy(lists));
    const ours = declarations(renderToolsSdkPy(tools));
    expect(ours).toBe(declarations(upstream.renderToolsSdkPy(tools as never)));
    // The cap held: the deepest list chain became Any inside 180 brackets.
    expect(ours).toContain(`${'list['.repeat(180)}Any${']'.repeat(180)}`);
  });
});
