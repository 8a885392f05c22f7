/**
 * Code Mode's presentation: the TypeScript declarations a model programs against in `run_code`
 * (the DeepSeek Harness's `tools:sdk` prompt section), projected from the same schemas the model
 * would otherwise see as functions. The declared shape follows the harness's published contract
 * (`ToolArgsMap`, `ToolOutputMap`, `ToolName`, `ToolCallError`, `tools`), so a program written for
 * one runs on the other; the instructions above it are this package's own words.
 */
import { isRecord } from './values';

/** One tool as the SDK declares it: its model-facing schema and the JSON value a call resolves to. */
export interface ToolSdkSchema {
  readonly name: string;
  readonly description: string;
  readonly parameters: unknown;
  /** The JSON Schema of what the binding resolves to. */
  readonly output: unknown;
}

/** Deeper than this, a schema is declared `unknown`: the prompt stays bounded whatever it holds. */
const MAX_DEPTH = 32;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const pad = (indent: number): string => '  '.repeat(indent);
const key = (name: string): string => (IDENTIFIER.test(name) ? name : JSON.stringify(name));

/** A description as a one-line doc comment that cannot close itself early. */
const doc = (description: unknown, indent: number): string[] => {
  if (typeof description !== 'string' || description === '') return [];
  const line = description.replace(/\s+/g, ' ').trim();
  return [`${pad(indent)}/** ${line.replaceAll('*/', '*\\/')} */`];
};

const literal = (value: unknown): string | undefined =>
  value === null ||
  typeof value === 'string' ||
  typeof value === 'boolean' ||
  (typeof value === 'number' && Number.isFinite(value))
    ? JSON.stringify(value)
    : undefined;

const union = (parts: readonly string[]): string =>
  parts.length === 0 ? 'never' : parts.join(' | ');

/** An array's element type, parenthesized wherever `[]` could bind to part of it. */
const arrayOf = (item: string): string => (/[|&]/.test(item) ? `(${item})[]` : `${item}[]`);

const typeFor = (type: string, schema: Record<string, unknown>, indent: number, depth: number) => {
  switch (type) {
    case 'string':
    case 'boolean':
    case 'null':
      return type;
    case 'number':
    case 'integer':
      return 'number';
    case 'array':
      return schema.items === undefined || Array.isArray(schema.items)
        ? 'JsonValue[]'
        : arrayOf(render(schema.items, indent, depth + 1));
    case 'object':
      return objectType(schema, indent, depth);
    default:
      return 'unknown';
  }
};

const objectType = (schema: Record<string, unknown>, indent: number, depth: number): string => {
  const properties = isRecord(schema.properties) ? Object.entries(schema.properties) : [];
  const closed = schema.additionalProperties === false;
  if (properties.length === 0)
    return closed ? 'Record<string, never>' : 'Record<string, JsonValue>';
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const lines = ['{'];
  for (const [name, property] of properties) {
    lines.push(...doc(isRecord(property) ? property.description : undefined, indent + 1));
    const optional = required.has(name) ? '' : '?';
    lines.push(
      `${pad(indent + 1)}${key(name)}${optional}: ${render(property, indent + 1, depth + 1)};`,
    );
  }
  lines.push(`${pad(indent)}}`);
  const declared = lines.join('\n');
  return closed ? declared : `${declared} & Record<string, JsonValue>`;
};

/** One schema node as a TypeScript type; what it cannot say exactly is `unknown` or wider. */
const render = (schema: unknown, indent: number, depth: number): string => {
  if (depth > MAX_DEPTH) return 'unknown';
  if (schema === true) return 'JsonValue';
  if (schema === false) return 'never';
  if (!isRecord(schema)) return 'unknown';
  if ('const' in schema) return literal(schema.const) ?? 'JsonValue';
  if (Array.isArray(schema.enum)) {
    const values = schema.enum.map(literal);
    return values.every((v) => v !== undefined) ? union(values as string[]) : 'JsonValue';
  }
  const variants = Array.isArray(schema.oneOf) ? schema.oneOf : schema.anyOf;
  if (Array.isArray(variants)) return union(variants.map((v) => render(v, indent, depth + 1)));
  if (typeof schema.type === 'string') return typeFor(schema.type, schema, indent, depth);
  if (Array.isArray(schema.type)) {
    return union(
      schema.type.map((t) =>
        typeof t === 'string' ? typeFor(t, schema, indent, depth) : 'unknown',
      ),
    );
  }
  // No type: what the schema allows is any JSON value (annotations only), or more than this
  // projection reads ($ref, allOf, not): the model is told no more than the schema guarantees.
  const keywords = Object.keys(schema).filter(
    (k) => !['description', 'title', 'default', 'examples'].includes(k),
  );
  return keywords.length === 0 ? 'JsonValue' : 'unknown';
};

/**
 * One JSON Schema as a TypeScript type literal. Never throws: anything it cannot declare exactly
 * is `unknown` (or `JsonValue` for a schema that allows any JSON value).
 */
export function jsonSchemaToTs(schema: unknown, indent = 0): string {
  try {
    return render(schema, indent, 0);
  } catch {
    return 'unknown';
  }
}

const INSTRUCTIONS = `## Programs for run_code

Call \`run_code\` with \`code\`, the body of an async TypeScript function (type annotations are stripped before it runs, so use erasable syntax only: no \`enum\`, no namespaces), and \`description\`, a few words saying what the program does. In the program:

- Call a tool with \`await tools.name(args)\` (\`tools["odd-name"](args)\` for a name that is not an identifier). It resolves to the tool's JSON value, typed below. Arguments must be plain JSON.
- A tool call that fails rejects with a \`ToolCallError\`: its \`toolName\` says which tool, its \`message\` why. Catch it to recover and go on.
- Calls to read-only tools may run together (\`Promise.all\`); every other call runs alone, in the order made. Use \`await\` to order dependent work.
- Only what the program prints (\`console.log\`) or returns comes back to you; an image a tool returns is attached after the run, and other tool results in between are not, so keep what you need and print or return that.

The tools:`;

/**
 * The `tools:sdk` prompt section: the instructions, then one declaration of every given tool,
 * in name order so an unchanged tool set always renders the same text (a stable prompt prefix).
 */
export function renderToolsSdk(schemas: readonly ToolSdkSchema[]): string {
  const sorted = [...schemas].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const args: string[] = [];
  const outputs: string[] = [];
  for (const tool of sorted) {
    args.push(
      ...doc(tool.description, 1),
      `${pad(1)}${key(tool.name)}: ${jsonSchemaToTs(tool.parameters, 1)};`,
    );
    outputs.push(`${pad(1)}${key(tool.name)}: ${jsonSchemaToTs(tool.output, 1)};`);
  }
  const block = (name: string, members: string[]) =>
    `interface ${name} {${members.length === 0 ? '' : `\n${members.join('\n')}\n`}}`;
  const declarations = [
    'type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue }',
    block('ToolArgsMap', args),
    block('ToolOutputMap', outputs),
    'type ToolName = keyof ToolOutputMap',
    'declare class ToolCallError extends Error {\n  readonly name: "ToolCallError";\n  readonly toolName: ToolName;\n}',
    'declare const tools: {\n  [K in ToolName]: (args: ToolArgsMap[K]) => Promise<ToolOutputMap[K]>;\n}',
  ];
  return `${INSTRUCTIONS}\n\n\`\`\`ts\n${declarations.join('\n\n')}\n\`\`\``;
}
