/**
 * Code Mode for a Python code runtime, against a real CPython: the declarations it renders are
 * Python that CPython compiles and runs whatever the schemas hold, and a program written against
 * them runs through our pipeline (calls overlapped, refused, caught as `ToolCallError`).
 *
 * The harness publishes no Python code runtime (its seam's README: only TypeScript has a
 * backend), so {@link CPythonRuntime} is a small one for tests: the program runs in a `python3`
 * child as the body of an async function, and each tool call crosses back as a JSON line. These
 * tests skip only where no `python3` of 3.11 or later (`typing.NotRequired`) is installed.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Context, Service } from '@deepseek-ai/cordis';
import SystemPrompt from '@deepseek-ai/dsh-system-prompt';
import { type ToolDefinition, textContent } from '@dsh-tools/protocol';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonSchemaToPy, renderToolsSdkPy } from './code-mode-sdk-py';
import { ToolRegistry } from './cordis';

// biome-ignore lint/suspicious/noExplicitAny: cordis contexts and results, typed loosely here
type Any = any;

const version = spawnSync('python3', ['-c', 'import sys; print(sys.version_info >= (3, 11))'], {
  encoding: 'utf8',
});
const python = version.stdout?.trim() === 'True';

/** The declarations block of an SDK section. */
const declarations = (sdk: string): string => sdk.slice(sdk.indexOf('```python') + 10, -4);

/**
 * What CPython says of each source when it compiles it, or also runs it (`null`: no error).
 * Compiling is the contract (the declarations are prompt text, as the harness's are: a union of
 * two `None`s compiles, and fails only when its annotation is evaluated).
 */
function runInPython(sources: readonly string[], execute = false): (string | null)[] {
  const script = `
import json, sys
out = []
for source in json.load(sys.stdin):
    try:
        code = compile(source, "<sdk>", "exec")
        if ${execute ? 'True' : 'False'}:
            exec(code, {})
        out.append(None)
    except BaseException as error:
        out.append(f"{type(error).__name__}: {error}")
print(json.dumps(out))`;
  const run = spawnSync('python3', ['-c', script], {
    input: JSON.stringify(sources),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`python3 failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

/** The program's side of the bridge: `tools`, `ToolCallError`, `print`, and the run. */
const BOOT = `
import asyncio, json, sys, textwrap

class ToolCallError(Exception):
    def __init__(self, toolName, message):
        super().__init__(message)
        self.toolName = toolName

def send(message):
    sys.stdout.write(json.dumps(message) + "\\n")
    sys.stdout.flush()

pending = {}

class Tools:
    def __init__(self, names):
        self._names = names
    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return self[name]
    def __getitem__(self, name):
        if name not in self._names:
            raise AttributeError(f"tools has no tool {name!r}")
        async def call(args):
            future = asyncio.get_running_loop().create_future()
            pending[len(pending) + 1] = future
            send({"call": len(pending), "name": name, "args": args})
            ok, payload = await future
            if not ok:
                raise ToolCallError(name, payload)
            return payload
        return call

async def answers():
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := await reader.readline():
        answer = json.loads(line)
        pending[answer["id"]].set_result((answer["ok"], answer.get("value", answer.get("message"))))

async def main():
    spec = json.loads(sys.argv[1])
    asyncio.ensure_future(answers())
    log = lambda *parts: send({"log": " ".join(str(part) for part in parts)})
    source = "async def __program__(tools, ToolCallError, print):\\n    pass\\n" + textwrap.indent(spec["program"], "    ")
    scope = {}
    try:
        exec(compile(source, "<program>", "exec"), scope)
        value = await scope["__program__"](Tools(spec["names"]), ToolCallError, log)
        send({"done": True, "value": value})
    except BaseException as error:
        send({"error": f"{type(error).__name__}: {error}"})

asyncio.run(main())
`;

/** A code runtime for tests: each program in its own `python3` child, killed when it is done. */
class CPythonRuntime extends Service {
  readonly language = 'python';
  readonly children = new Set<ChildProcess>();
  constructor(ctx: Context) {
    super(ctx, 'codeRuntime');
  }
  run(request: Any): Promise<{ value?: unknown; logs: string[]; error?: Any }> {
    const [namespace] = request.bindings;
    const functions = namespace.functions as Record<string, (args: unknown) => Promise<unknown>>;
    const names = Object.keys(functions);
    const child = spawn('python3', [
      '-c',
      BOOT,
      JSON.stringify({ program: request.program, names }),
    ]);
    this.children.add(child);
    const logs: string[] = [];
    return new Promise((resolve) => {
      const settle = (outcome: { value?: unknown; error?: Any }) => {
        child.kill();
        this.children.delete(child);
        resolve({ logs, ...outcome });
      };
      request.signal?.addEventListener('abort', () =>
        settle({ error: { kind: 'abort', message: 'aborted' } }),
      );
      child.on('exit', () => settle({ error: { kind: 'worker-exit', message: 'python exited' } }));
      createInterface({ input: child.stdout }).on('line', (line) => {
        const message = JSON.parse(line);
        if ('log' in message) logs.push(message.log);
        else if ('done' in message) settle(message.value === null ? {} : { value: message.value });
        else if ('error' in message)
          settle({ error: { kind: 'exception', message: message.error } });
        else {
          const answer = (reply: object) =>
            child.stdin.write(`${JSON.stringify({ id: message.call, ...reply })}\n`);
          (functions[message.name] as (args: unknown) => Promise<unknown>)(message.args).then(
            (value) => answer({ ok: true, value }),
            (error: Error) => answer({ ok: false, message: error.message }),
          );
        }
      });
    });
  }
}

const runtimes: CPythonRuntime[] = [];
afterEach(() => {
  for (const runtime of runtimes.splice(0)) for (const child of runtime.children) child.kill();
});

describe('jsonSchemaToPy', () => {
  it('declares each construct of the harness’s subset, and Any for what is outside it', () => {
    expect(jsonSchemaToPy({ type: 'integer', enum: [1, 2 ** 60] })).toBe(
      'Literal[1, 1152921504606846976]',
    );
    expect(jsonSchemaToPy({ type: 'string', const: 'say "hi"' })).toBe('Literal["say \\"hi\\""]');
    expect(jsonSchemaToPy({ oneOf: [{ type: 'boolean' }, { type: 'null' }] })).toBe('bool | None');
    expect(jsonSchemaToPy({ type: 'array', items: { type: 'number' } })).toBe('list[float]');
    expect(jsonSchemaToPy({ type: 'array' })).toBe('list[Any]');
    // Objects need a class name to be declared under: none here.
    expect(jsonSchemaToPy({ type: 'object', properties: { a: { type: 'string' } } })).toBe(
      'dict[str, Any]',
    );
    expect(jsonSchemaToPy({ description: 'anything' })).toBe('Any');
    for (const outside of [
      { anyOf: [{ type: 'string' }] },
      { $ref: '#/definitions/a' },
      { type: ['string', 'null'] },
      { type: 'string', nullable: true },
      { type: 'object', additionalProperties: { type: 'string' } },
      { type: 'array', items: { type: 'string', format: 'uri' } },
    ]) {
      expect(jsonSchemaToPy(outside), JSON.stringify(outside)).toBe('Any');
    }
  });
});

describe.skipIf(!python)('the Python SDK, run by CPython', () => {
  it('renders declarations CPython compiles, whatever the schemas and names', () => {
    const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
    console.log(`fast-check seed ${seed}`);
    // Names from the engine's newest Unicode tables can outrun the interpreter's (a documented
    // skew of the harness's renderer too), so names here are ASCII or long-assigned letters.
    const name = fc.oneof(
      fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 6 }),
      fc.constantFrom('class', '__debug__', '__x', '_y', 'match', '路径', 'ﬁeld', 'a-b', 'Ⅻ'),
    );
    const text = fc.string({ unit: 'binary', maxLength: 12 });
    const { schema } = fc.letrec((tie) => ({
      schema: fc.oneof(
        { depthSize: 'small' },
        fc.record(
          {
            type: fc.constantFrom('string', 'number', 'integer', 'boolean', 'null'),
            description: text,
          },
          { requiredKeys: ['type'] },
        ),
        fc.record({ type: fc.constant('string'), enum: fc.array(text, { minLength: 1 }) }),
        fc.record({ type: fc.constant('number'), const: fc.double({ noNaN: true }) }),
        fc.record({ type: fc.constant('array'), items: tie('schema') }),
        fc.record({ oneOf: fc.array(tie('schema'), { minLength: 2, maxLength: 3 }) }),
        fc.record(
          {
            type: fc.constant('object'),
            properties: fc.dictionary(name, tie('schema'), { maxKeys: 3 }),
            additionalProperties: fc.boolean(),
          },
          { requiredKeys: ['type'] },
        ),
      ),
    }));
    const tool = fc.record({ name, description: text, parameters: schema, output: schema });
    const samples = fc.sample(fc.uniqueArray(tool, { maxLength: 4, selector: (t) => t.name }), {
      seed,
      numRuns: 300,
    });
    const sources = samples.map((tools) => declarations(renderToolsSdkPy(tools)));
    const failures = runInPython(sources).flatMap((error, i) =>
      error === null ? [] : [`${error}\n${sources[i]}`],
    );
    expect(failures).toEqual([]);
    // The samples did reach what is hard to declare.
    expect(sources.some((s) => s.includes('(TypedDict):'))).toBe(true);
    expect(sources.some((s) => s.includes('# tools['))).toBe(true);
  });

  it('declares a list chain past CPython’s bracket limit as valid Python', () => {
    let deep: object = { type: 'string' };
    for (let i = 0; i < 400; i++) deep = { type: 'array', items: deep };
    const sdk = renderToolsSdkPy([
      { name: 'deep', description: '', parameters: deep, output: deep },
    ]);
    expect(runInPython([declarations(sdk)])).toEqual([null]);
  });

  it('runs a program written against the SDK through our pipeline', async () => {
    const root = new Context() as Any;
    await root.plugin(SystemPrompt, {});
    await root.plugin(CPythonRuntime);
    runtimes.push(root.codeRuntime);
    await root.plugin(ToolRegistry, { mode: 'code' });
    const item = {
      type: 'object',
      properties: { i: { type: 'integer' } },
      required: ['i'],
    } as const;
    const read: ToolDefinition = {
      name: 'read',
      description: 'Reads one item.',
      parameters: item,
      hints: { concurrencySafe: true },
      execute: ({ i }) => [textContent(`item ${i}`)],
    };
    const odd: ToolDefinition = {
      name: 'odd-name',
      description: 'Has a name Python cannot spell.',
      parameters: { type: 'object' },
      execute: () => [textContent('odd')],
    };
    const remove: ToolDefinition = { ...read, name: 'delete', hints: {} };
    for (const tool of [read, odd, remove]) root.tools.register(tool);
    const seen: string[] = [];
    root.on('tools/pre-execute', (exec: Any, next: () => unknown) => {
      seen.push(exec.name);
      return exec.name === 'delete' ? { kind: 'deny', reason: 'items are kept' } : next();
    });
    const sdk = (await root.systemPrompt.assemble({})).sections.find(
      (s: Any) => s.name === 'tools:sdk',
    ).text;
    expect(sdk).toContain('    # tools["odd-name"](args: dict[str, Any]) -> str');
    // These declarations even run: every class is declared before it is named.
    expect(runInPython([declarations(sdk)], true)).toEqual([null]);
    const result = await root.tools.execute({
      callId: 'py1',
      name: 'run_code',
      arguments: {
        description: 'read two, delete one',
        code: `import asyncio
items = await asyncio.gather(tools.read({"i": 1}), tools.read({"i": 2}))
print("read", items, await tools["odd-name"]({}))
try:
    await tools.delete({"i": 1})
except ToolCallError as error:
    print(error.toolName, "refused:", error)
try:
    await tools.read({"i": "one"})
except ToolCallError as error:
    print(error.toolName, "invalid")
return {"items": items}`,
      },
    });
    expect(result.isError).toBe(false);
    const [logs, value] = result.content[0].text.split('\n{');
    expect(logs.split('\n')).toEqual([
      "read ['item 1', 'item 2'] odd",
      expect.stringMatching(/^delete refused: .*items are kept/),
      'read invalid',
    ]);
    expect(JSON.parse(`{${value}`)).toEqual({ items: ['item 1', 'item 2'] });
    // Each call went through the pipeline; the invalid one was refused before any policy.
    expect(seen).toEqual(['run_code', 'read', 'read', 'odd-name', 'delete']);
  });
});
