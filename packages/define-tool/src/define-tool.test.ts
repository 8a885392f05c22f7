import * as fs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BodyExecution, ToolArgs, ToolDefinition } from '@dsh-tools/protocol';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod3';
import { defineTool } from './index';

const noop = async () => [];
/** A minimal valid definition, to vary one key at a time. */
const base = { name: 'read_file', description: 'Read a file', parameters: {}, execute: noop };
/** Calls defineTool with anything, as plain JavaScript would. */
const define = (config: unknown) => defineTool(config as Parameters<typeof defineTool>[0]);
/** The message defineTool throws for `config`, or '' when it throws nothing. */
const thrown = (config: unknown): string => {
  try {
    define(config);
    return '';
  } catch (error) {
    expect(error).toBeInstanceOf(TypeError);
    return (error as Error).message;
  }
};
/** Runs a tool's body as the registry would, with a signal and a tool view. */
const run = <A>(tool: ToolDefinition<A>, args: A) =>
  tool.execute(args, {
    callId: 'c1',
    name: tool.name,
    arguments: args,
    signal: new AbortController().signal,
    tool: { ...tool, hints: tool.hints ?? {}, source: { kind: 'local' } },
  } as BodyExecution<A>);

describe('the seed example', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await fs.mkdtemp(join(tmpdir(), 'define-tool-'));
    await fs.writeFile(join(dir, 'notes.txt'), 'one\ntwo\nthree\nfour\nfive\n');
  });
  afterAll(() => fs.rm(dir, { recursive: true, force: true }));

  // The seed README's example, verbatim but for the import path and the offset/limit it documents.
  const readFile = defineTool({
    name: 'read_file',
    description: 'Read a file from the workspace',
    parameters: {
      path: { type: 'string', description: 'File path', required: true },
      offset: { type: 'number', description: 'Start line' },
      limit: { type: 'number', description: 'Max lines' },
    },
    async execute({ path, offset, limit }) {
      const text = await fs.readFile(path, 'utf8');
      const lines = text.split('\n').slice(offset ?? 0);
      return [{ type: 'text', text: lines.slice(0, limit ?? lines.length).join('\n') }];
    },
  });

  it('runs verbatim as the seed README has it', async () => {
    const readFile = defineTool({
      name: 'read_file',
      description: 'Read a file from the workspace',
      parameters: {
        path: { type: 'string', description: 'File path', required: true },
        offset: { type: 'number', description: 'Start line' },
        limit: { type: 'number', description: 'Max lines' },
      },
      // biome-ignore lint/correctness/noUnusedFunctionParameters: verbatim, offset and limit unused
      async execute({ path, offset, limit }) {
        const text = await fs.readFile(path, 'utf8');
        return [{ type: 'text', text }];
      },
    });
    expect(await run(readFile, { path: join(dir, 'notes.txt'), offset: 2 })).toEqual([
      { type: 'text', text: 'one\ntwo\nthree\nfour\nfive\n' },
    ]);
  });

  it('reads a real file, with offset and limit applied', async () => {
    const path = join(dir, 'notes.txt');
    expect(await run(readFile, { path })).toEqual([
      { type: 'text', text: 'one\ntwo\nthree\nfour\nfive\n' },
    ]);
    expect(await run(readFile, { path, offset: 1, limit: 2 })).toEqual([
      { type: 'text', text: 'two\nthree' },
    ]);
    await expect(run(readFile, { path: join(dir, 'missing.txt') })).rejects.toThrow(/ENOENT/);
  });

  it('shows the model a plain draft-07 object schema', () => {
    expect(readFile).toMatchObject({
      name: 'read_file',
      description: 'Read a file from the workspace',
    });
    expect(readFile.parameters).toEqual({
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path' },
        offset: { type: 'number', description: 'Start line' },
        limit: { type: 'number', description: 'Max lines' },
      },
      required: ['path'],
    });
    expect(Object.keys(readFile).sort()).toEqual(['description', 'execute', 'name', 'parameters']);
  });
});

describe('SchemaSpec', () => {
  it('converts every kind of property and every constraint', () => {
    const tool = defineTool({
      ...base,
      parameters: {
        s: { type: 'string', minLength: 1, maxLength: 9, pattern: '^a', default: 'ab' },
        e: { type: 'string', enum: ['x', 'y'], required: true },
        n: { type: 'number', minimum: -1.5, maximum: 2 },
        i: { type: 'integer', enum: [1, 2], default: 1 },
        b: { type: 'boolean', default: false },
        a: { type: 'array', items: { type: 'integer' }, minItems: 1, maxItems: 3 },
        o: {
          type: 'object',
          description: 'nested',
          properties: { deep: { type: 'string', required: true }, opt: { type: 'boolean' } },
        },
        free: { type: 'object' },
        none: { type: 'object', properties: {} },
      },
    });
    expect(tool.parameters).toEqual({
      type: 'object',
      properties: {
        s: { type: 'string', minLength: 1, maxLength: 9, pattern: '^a', default: 'ab' },
        e: { type: 'string', enum: ['x', 'y'] },
        n: { type: 'number', minimum: -1.5, maximum: 2 },
        i: { type: 'integer', enum: [1, 2], default: 1 },
        b: { type: 'boolean', default: false },
        a: { type: 'array', items: { type: 'integer' }, minItems: 1, maxItems: 3 },
        o: {
          type: 'object',
          description: 'nested',
          properties: { deep: { type: 'string' }, opt: { type: 'boolean' } },
          required: ['deep'],
        },
        free: { type: 'object' },
        none: { type: 'object', properties: {} },
      },
      required: ['e'],
    });
    expect(tool.hints).toBeUndefined();
  });

  it('keeps the spec it was given untouched', () => {
    const parameters = { p: { type: 'string', path: 'read', required: true } } as const;
    const copy = structuredClone(parameters);
    defineTool({ ...base, parameters });
    expect(parameters).toEqual(copy);
  });

  it('turns path markers into hints.paths, nested ones included, after the explicit ones', () => {
    const tool = defineTool({
      ...base,
      parameters: {
        path: { type: 'string', path: 'read', required: true },
        files: { type: 'array', items: { type: 'string', path: 'read' } },
        options: {
          type: 'object',
          properties: {
            target: { type: 'string', path: 'write' },
            edits: {
              type: 'array',
              items: { type: 'object', properties: { file: { type: 'string', path: 'write' } } },
            },
          },
        },
      },
      hints: { readOnly: false, paths: [{ arg: 'cwd', access: 'read' }] },
    });
    expect(tool.hints).toEqual({
      readOnly: false,
      paths: [
        { arg: 'cwd', access: 'read' },
        { arg: 'path', access: 'read' },
        { arg: 'files.*', access: 'read' },
        { arg: 'options.target', access: 'write' },
        { arg: 'options.edits.*.file', access: 'write' },
      ],
    });
    // Markers are for policies: the model never sees them.
    expect(JSON.stringify(tool.parameters)).not.toContain('"path":"');
    expect(tool.parameters.properties?.path).toEqual({ type: 'string' });
  });

  it('refuses a path marker a dotted path could not name', () => {
    expect(thrown({ ...base, parameters: { 'a.b': { type: 'string', path: 'read' } } })).toBe(
      'defineTool("read_file").parameters.a.b.path needs a property name without "." and "*"',
    );
    expect(
      thrown({
        ...base,
        parameters: {
          '*': { type: 'object', properties: { x: { type: 'string', path: 'write' } } },
        },
      }),
    ).toMatch(/parameters\.\*\.x\.path needs a property name without/);
    // Without a marker such names are fine.
    expect(define({ ...base, parameters: { 'a.b': { type: 'string' } } }).parameters).toEqual({
      type: 'object',
      properties: { 'a.b': { type: 'string' } },
    });
  });

  it.each([
    [
      { p: { type: 'string', requird: true } },
      'parameters.p has unknown key "requird" — did you mean "required"?',
    ],
    [
      { p: { type: 'string', Required: true } },
      'parameters.p has unknown key "Required" — did you mean "required"?',
    ],
    [
      { p: { type: 'string', tpye: 'x' } },
      'parameters.p has unknown key "tpye" — did you mean "type"?',
    ],
    [{ p: { type: 'number', minLength: 1 } }, 'parameters.p has unknown key "minLength"'],
    [{ p: { type: 'string', format: 'uri' } }, 'parameters.p has unknown key "format"'],
    [{ p: { type: 'number', path: 'read' } }, 'parameters.p has unknown key "path"'],
    [
      { a: { type: 'array', items: { type: 'string', required: true } } },
      'parameters.a.items has unknown key "required"',
    ],
    [
      { o: { type: 'object', properties: { q: { type: 'string', descripton: 'x' } } } },
      'parameters.o.q has unknown key "descripton" — did you mean "description"?',
    ],
    [
      { p: { type: 'strin' } },
      'parameters.p.type must be string,number,integer,boolean,array,object (got "strin")',
    ],
    [
      { p: { description: 'no type' } },
      'parameters.p.type must be string,number,integer,boolean,array,object (got undefined)',
    ],
    [
      { p: 'string' },
      'parameters.p.type must be string,number,integer,boolean,array,object (got undefined)',
    ],
    [
      { p: null },
      'parameters.p.type must be string,number,integer,boolean,array,object (got undefined)',
    ],
    [
      { p: { type: 'constructor' } },
      'parameters.p.type must be string,number,integer,boolean,array,object (got "constructor")',
    ],
    [
      { p: { type: 'string', required: 'yes' } },
      'parameters.p.required must be a boolean (got "yes")',
    ],
    [
      { p: { type: 'string', description: 5 } },
      'parameters.p.description must be a non-empty string (got 5)',
    ],
    [{ a: { type: 'array' } }, 'parameters.a.items must be an object (got undefined)'],
    [
      { a: { type: 'array', items: 'string' } },
      'parameters.a.items must be an object (got "string")',
    ],
    [
      { a: { type: 'array', items: {} } },
      'parameters.a.items.type must be string,number,integer,boolean,array,object (got undefined)',
    ],
    [
      { o: { type: 'object', properties: [] } },
      'parameters.o.properties must be an object (got [])',
    ],
    [
      { p: { type: 'string', enum: [] } },
      'parameters.p.enum must be distinct values of the type (got [])',
    ],
    [
      { p: { type: 'string', enum: ['a', 1] } },
      'parameters.p.enum must be distinct values of the type (got ["a",1])',
    ],
    [
      { p: { type: 'integer', enum: [1, 1.5] } },
      'parameters.p.enum must be distinct values of the type (got [1,1.5])',
    ],
    [
      { p: { type: 'string', enum: 'ab' } },
      'parameters.p.enum must be distinct values of the type (got "ab")',
    ],
    [
      { p: { type: 'string', enum: ['a', 'a'] } },
      'parameters.p.enum must be distinct values of the type (got ["a","a"])',
    ],
    [{ p: { type: 'boolean', enum: [true] } }, 'parameters.p has unknown key "enum"'],
    [
      { p: { type: 'string', pattern: '(' } },
      'parameters.p.pattern must be a valid regex (got "(")',
    ],
    [{ p: { type: 'string', pattern: 5 } }, 'parameters.p.pattern must be a valid regex (got 5)'],
    [
      { p: { type: 'string', minLength: -1 } },
      'parameters.p.minLength must be an integer >= 0 (got -1)',
    ],
    [
      { p: { type: 'string', maxLength: 1.5 } },
      'parameters.p.maxLength must be an integer >= 0 (got 1.5)',
    ],
    [
      { a: { type: 'array', items: { type: 'string' }, minItems: '1' } },
      'parameters.a.minItems must be an integer >= 0 (got "1")',
    ],
    [
      { p: { type: 'number', minimum: Number.NaN } },
      'parameters.p.minimum must be a finite number (got null)',
    ],
    [
      { p: { type: 'number', maximum: '9' } },
      'parameters.p.maximum must be a finite number (got "9")',
    ],
    [
      { p: { type: 'string', path: 'rw' } },
      `parameters.p.path must be 'read' or 'write' (got "rw")`,
    ],
    [
      { p: { type: 'string', path: ['read'] } },
      `parameters.p.path must be 'read' or 'write' (got ["read"])`,
    ],
  ])('rejects %j, naming the property and the key', (parameters, message) => {
    expect(thrown({ ...base, parameters })).toBe(`defineTool("read_file").${message}`);
  });
});

describe('Standard JSON Schema', () => {
  it('converts a zod schema to its input JSON Schema and keeps it as the validator', async () => {
    const schema = z.object({
      path: z.string().describe('File path'),
      limit: z.number().int().min(1).default(100),
    });
    const tool = defineTool({
      ...base,
      parameters: schema,
      async execute({ path, limit }) {
        return [{ type: 'text', text: `${path}:${limit}` }];
      },
    });
    expect(tool.parameters).toEqual({
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path' },
        limit: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, default: 100 },
      },
      required: ['path'],
    });
    expect(tool.inputValidator).toBe(schema);
    expect(await tool.inputValidator?.['~standard'].validate({ path: 'a' })).toEqual({
      value: { path: 'a', limit: 100 },
    });
    expect(await run(tool, { path: 'a', limit: 2 })).toEqual([{ type: 'text', text: 'a:2' }]);
  });

  it('converts valibot (through toStandardJsonSchema) and arktype schemas', () => {
    const expected = {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'number' } },
      required: ['a'],
    };
    const valibot = toStandardJsonSchema(v.object({ a: v.string(), b: v.optional(v.number()) }));
    const fromValibot = defineTool({ ...base, parameters: valibot });
    expect(fromValibot.parameters).toEqual(expected);
    expect(fromValibot.inputValidator).toBe(valibot);

    const ark = type({ a: 'string', 'b?': 'number' });
    const fromArk = defineTool({ ...base, parameters: ark });
    expect(fromArk.parameters).toEqual(expected);
    expect(fromArk.inputValidator).toBe(ark);
  });

  it('refuses a schema whose root is not an object, naming the tool', () => {
    expect(thrown({ ...base, parameters: z.string() })).toBe(
      `defineTool("read_file").parameters needs type: 'object' at its root (got "string") (zod 3: /zod3)`,
    );
    expect(thrown({ ...base, parameters: type('string[]') })).toMatch(/got "array"/);
  });

  it('refuses a Standard Schema without JSON Schema (a zod 3 schema), pointing to /zod3', () => {
    const zod3 = z3.object({ a: z3.string() });
    expect(zod3['~standard']).toBeDefined();
    expect(thrown({ ...base, parameters: zod3 })).toBe(
      `defineTool("read_file").parameters needs type: 'object' at its root (got undefined) (zod 3: /zod3)`,
    );
  });

  it("lets a library's own conversion error through", () => {
    expect(() => define({ ...base, parameters: z.object({ at: z.date() }) })).toThrow(
      /Date cannot be represented/,
    );
  });
});

describe('JSON Schema', () => {
  it('passes an object schema through without $schema, and without a validator', () => {
    const parameters = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { q: { type: 'string', minLength: 1 } },
      required: ['q'],
      additionalProperties: false,
    } as const;
    const tool = defineTool({ ...base, parameters });
    const { $schema, ...rest } = parameters;
    expect(tool.parameters).toEqual(rest);
    expect(tool.parameters).not.toBe(parameters);
    expect(tool.inputValidator).toBeUndefined();
  });

  it('refuses one whose root is not an object, or that lacks type: object', () => {
    expect(thrown({ ...base, parameters: { type: 'string' } })).toBe(
      `defineTool("read_file").parameters needs type: 'object' at its root (got "string")`,
    );
    expect(thrown({ ...base, parameters: { type: ['object', 'null'] } })).toMatch(
      /parameters\.type\.type must be/,
    );
    // `properties` that are no property spec: a JSON Schema that forgot its root type.
    expect(
      thrown({ ...base, parameters: { properties: { a: { type: 'string' } }, required: ['a'] } }),
    ).toBe(`defineTool("read_file").parameters needs type: 'object' at its root (got undefined)`);
  });

  it('reads a spec property called "type" or "properties" as a SchemaSpec', () => {
    const tool = define({
      ...base,
      parameters: {
        type: { type: 'string', required: true },
        properties: { type: 'object', properties: { a: { type: 'string' } } },
      },
    });
    expect(tool.parameters).toEqual({
      type: 'object',
      properties: {
        type: { type: 'string' },
        properties: { type: 'object', properties: { a: { type: 'string' } } },
      },
      required: ['type'],
    });
  });
});

describe('the definition', () => {
  it('keeps execute, hints and timeoutMs as given', () => {
    const classify = (args: ToolArgs) => args.x === 1;
    const tool = defineTool({
      ...base,
      hints: { readOnly: true, concurrencySafe: classify, command: 'cmd' },
      timeoutMs: 0,
    });
    expect(tool.execute).toBe(noop);
    expect(tool.hints).toEqual({ readOnly: true, concurrencySafe: classify, command: 'cmd' });
    expect(tool.timeoutMs).toBe(0);
  });

  it('accepts a name of 1 to 64 letters, digits, "_" and "-"', () => {
    expect(define({ ...base, name: 'a'.repeat(64) }).name).toHaveLength(64);
    expect(define({ ...base, name: 'A-z_0' }).name).toBe('A-z_0');
  });

  it.each([
    [
      { ...base, name: 'read file' },
      'defineTool("read file").name must be like /^[\\w-]{1,64}$/ (got "read file")',
    ],
    [{ ...base, name: '' }, 'defineTool("").name must be like /^[\\w-]{1,64}$/ (got "")'],
    [{ ...base, name: 'a'.repeat(65) }, /name must be like/],
    [{ ...base, name: 'ä' }, /name must be like/],
    [
      { ...base, name: ['read_file'] },
      'defineTool(["read_file"]).name must be like /^[\\w-]{1,64}$/ (got ["read_file"])',
    ],
    [
      { ...base, name: undefined },
      'defineTool(undefined).name must be like /^[\\w-]{1,64}$/ (got undefined)',
    ],
    [
      { ...base, description: '' },
      'defineTool("read_file").description must be a non-empty string (got "")',
    ],
    [
      { ...base, description: undefined },
      'defineTool("read_file").description must be a non-empty string (got undefined)',
    ],
    [{ ...base, execute: 'run' }, 'defineTool("read_file").execute must be a function (got "run")'],
    [
      { ...base, parameters: undefined },
      'defineTool("read_file").parameters must be an object (got undefined)',
    ],
    [
      { ...base, parameters: 'x' },
      'defineTool("read_file").parameters must be an object (got "x")',
    ],
    [{ ...base, parameters: [] }, 'defineTool("read_file").parameters must be an object (got [])'],
    [
      { ...base, timeoutMs: -1 },
      'defineTool("read_file").timeoutMs must be an integer >= 0 (got -1)',
    ],
    [
      { ...base, timeoutMs: Number.POSITIVE_INFINITY },
      'defineTool("read_file").timeoutMs must be an integer >= 0 (got Infinity)',
    ],
    [
      { ...base, timeoutMs: '5' },
      'defineTool("read_file").timeoutMs must be an integer >= 0 (got "5")',
    ],
    [
      { ...base, timeoutMs: 1.5 },
      'defineTool("read_file").timeoutMs must be an integer >= 0 (got 1.5)',
    ],
    [
      { ...base, timeout: 5 },
      'defineTool("read_file") has unknown key "timeout" — did you mean "timeoutMs"?',
    ],
    [{ ...base, handler: noop }, 'defineTool("read_file") has unknown key "handler"'],
    [{ ...base, hints: 'ro' }, 'defineTool("read_file").hints must be an object (got "ro")'],
    [{ ...base, hints: null }, 'defineTool("read_file").hints must be an object (got null)'],
    [
      { ...base, hints: { readonly: true } },
      'defineTool("read_file").hints has unknown key "readonly" — did you mean "readOnly"?',
    ],
    [
      { ...base, hints: { destructive: 'yes' } },
      'defineTool("read_file").hints.destructive must be a boolean (got "yes")',
    ],
    [
      { ...base, hints: { paths: 'path' } },
      'defineTool("read_file").hints.paths must be an array (got "path")',
    ],
    [
      { ...base, hints: { command: 1 } },
      'defineTool("read_file").hints.command must be a non-empty string (got 1)',
    ],
  ])('rejects a malformed definition (%#)', (config, message) => {
    const got = thrown(config);
    if (typeof message === 'string') expect(got).toBe(message);
    else expect(got).toMatch(message);
  });

  it('rejects what is no definition at all', () => {
    for (const config of [undefined, null, 5, 'read_file', [], () => {}])
      expect(thrown(config)).toMatch(/^defineTool\(.*\)\.name must be like/);
  });
});

describe('hostile and huge input', () => {
  it('converts property names like __proto__ and constructor as own keys', () => {
    const parameters = JSON.parse(
      '{"__proto__":{"type":"string","required":true,"path":"read"},"constructor":{"type":"number"},"toString":{"type":"boolean"}}',
    );
    const tool = define({ ...base, parameters });
    const properties = tool.parameters.properties!;
    expect(Object.keys(properties)).toEqual(['__proto__', 'constructor', 'toString']);
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
    expect(Object.hasOwn(properties, '__proto__')).toBe(true);
    expect(JSON.parse(JSON.stringify(tool.parameters))).toEqual({
      type: 'object',
      properties: JSON.parse(
        '{"__proto__":{"type":"string"},"constructor":{"type":"number"},"toString":{"type":"boolean"}}',
      ),
      required: ['__proto__'],
    });
    expect(tool.hints?.paths).toEqual([{ arg: '__proto__', access: 'read' }]);
    expect(({} as Record<string, unknown>).type).toBeUndefined();
  });

  it('refuses __proto__ as a key of a spec or a definition', () => {
    expect(
      thrown({ ...base, parameters: JSON.parse('{"a":{"type":"string","__proto__":{}}}') }),
    ).toBe('defineTool("read_file").parameters.a has unknown key "__proto__"');
    expect(thrown({ ...JSON.parse('{"__proto__":{"x":1}}'), ...base })).toBe(
      'defineTool("read_file") has unknown key "__proto__"',
    );
  });

  it('keeps messages short for huge names, keys and values', () => {
    const huge = 'x'.repeat(1_000_000);
    for (const config of [
      { ...base, name: huge },
      { ...base, description: 5, [huge]: 1 },
      { ...base, parameters: { p: { type: 'string', [huge]: true } } },
      { ...base, parameters: { p: { type: huge } } },
    ]) {
      const message = thrown(config);
      expect(message).toMatch(/must be|unknown key/);
      expect(message.length).toBeLessThan(300);
    }
  });

  it('renders values a message cannot show as JSON by their type', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(thrown({ ...base, description: cyclic })).toBe(
      'defineTool("read_file").description must be a non-empty string (got object)',
    );
    expect(thrown({ ...base, timeoutMs: 10n })).toMatch(/\(got bigint\)$/);
    expect(thrown({ ...base, execute: Symbol('x') })).toMatch(/\(got symbol\)$/);
  });

  it('throws (and does not hang) on a cyclic spec', () => {
    const node: Record<string, unknown> = { type: 'object', properties: {} };
    (node.properties as Record<string, unknown>).self = node;
    expect(() => define({ ...base, parameters: { root: node } })).toThrow(RangeError);
  });

  it('converts a wide and a deep spec', () => {
    const wide = Object.fromEntries(
      Array.from({ length: 10_000 }, (_, i) => [
        `p${i}`,
        { type: 'string', required: i % 2 === 0 },
      ]),
    );
    const tool = define({ ...base, parameters: wide });
    expect(Object.keys(tool.parameters.properties!)).toHaveLength(10_000);
    expect(tool.parameters.required).toHaveLength(5_000);

    let deep: Record<string, unknown> = { leaf: { type: 'string', path: 'read' } };
    for (let i = 0; i < 500; i++) deep = { n: { type: 'object', properties: deep } };
    const nested = define({ ...base, parameters: deep });
    expect(nested.hints?.paths?.[0]?.arg).toBe(`${'n.'.repeat(500)}leaf`);
  });
});
