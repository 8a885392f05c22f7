/**
 * Code Mode's presentation for a Python code runtime: the declarations a model programs against
 * in `run_code` when `ctx.codeRuntime.language` is `'python'`, declared as the DeepSeek Harness
 * declares them (a `TypedDict` per object shape, a `Tools` protocol with one awaitable method per
 * tool, `ToolCallError`, `tools`), so a program written for one runs on the other and the prompt
 * does not change when the service does. The instructions above them are this package's words.
 *
 * Everything emitted must parse as Python whatever the schemas hold: under `mode: 'code'` these
 * declarations are all the model knows of its tools. So names Python cannot spell are reached by
 * subscript, text is escaped where Python would choke on it, and bracket nesting is bounded.
 */
import { isHarnessSubsetSchema } from './code-mode-schema-subset';
import type { ToolSdkSchema } from './code-mode-sdk';
import { isRecord } from './values';

/** `str.isidentifier()`'s grammar (`xid_start xid_continue*`), on this engine's Unicode tables. */
const IDENTIFIER = /^[\p{XID_Start}_]\p{XID_Continue}*$/u;
/**
 * Hard keywords (never legal as an attribute or a field) and `__debug__` (never assignable).
 * Soft keywords (`match`, `case`, `type`, `_`) are legal names and stay out.
 */
const RESERVED = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield __debug__'.split(
    ' ',
  ),
);
/** The `typing` names the declarations may use, in the order they are imported. */
const TYPING = ['Any', 'Literal', 'NotRequired', 'Protocol', 'TypedDict'] as const;
type TypingName = (typeof TYPING)[number];
/** Longest class-name stem: names stay linear in a schema's depth. */
const MAX_CLASS_STEM = 120;
/** Deepest `list[` chain: CPython refuses a line with more than 200 open brackets. */
const MAX_LIST_DEPTH = 180;
/** Controls a description may hold that have no visible form (C0 but the whitespace, DEL, C1). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is its purpose
const CONTROL = /[\u0000-\u0008\u000e-\u001f\u007f-\u009f]/g;
/** Unpaired surrogates: Python source must encode as UTF-8, and these cannot. */
const LONE_SURROGATE = /[\ud800-\udfff]/gu;

const indent = (level: number): string => '    '.repeat(level);

/**
 * A name Python compiles to itself: an identifier whose NFKC form is itself (CPython normalizes
 * identifiers, JSON keys are compared as written, so `ﬁeld` would declare `field`).
 */
const isPlainName = (name: string): boolean =>
  IDENTIFIER.test(name) && name.normalize('NFKC') === name;

/** A field name a class-syntax `TypedDict` can declare (no keyword, no name mangling). */
const isFieldName = (name: string): boolean =>
  isPlainName(name) && !RESERVED.has(name) && !(name.startsWith('__') && !name.endsWith('__'));

/** A tool reachable as `tools.name`; the rest (underscore-led ones too) by `tools["name"]`. */
const isMethodName = (name: string): boolean =>
  isPlainName(name) && !RESERVED.has(name) && !name.startsWith('_');

/** A description on one line with every character Python source can carry, or none if blank. */
function oneLine(description: unknown): string | undefined {
  if (typeof description !== 'string') return undefined;
  const hex = (char: string, width: number) => char.charCodeAt(0).toString(16).padStart(width, '0');
  const line = description
    .replace(/\s+/g, ' ')
    .replace(CONTROL, (char) => `\\x${hex(char, 2)}`)
    .replace(LONE_SURROGATE, (char) => `\\u${hex(char, 4)}`)
    .trim();
  return line === '' ? undefined : line;
}

/** A method docstring: no quote or backslash of the text can end or escape its closing `"""`. */
function docstring(description: unknown, level: number): string[] {
  const line = oneLine(description);
  if (line === undefined) return [];
  return [`${indent(level)}"""${line.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"""`];
}

/**
 * A name as a class-name stem: words split at what cannot continue an identifier and at `_`,
 * each capitalized (by UTF-16 unit, as the harness does), `Tool` in front of a head that cannot
 * start one; NFKC-normalized, after the prefix too, since a combining head composes with it.
 */
function classStem(name: string): string {
  const joined = name
    .split(/[^\p{XID_Continue}]+|_+/u)
    .filter((word) => word !== '')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')
    .normalize('NFKC');
  return (/^\p{XID_Start}/u.test(joined) ? joined : `Tool${joined}`).normalize('NFKC');
}

/** A stem cut to its cap, never through the middle of a surrogate pair. */
function capStem(stem: string): string {
  if (stem.length <= MAX_CLASS_STEM) return stem;
  const cut = stem.slice(0, MAX_CLASS_STEM);
  return /[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/** A nested shape's stem: the parent's and the segment's, normalized as one (Hangul composes). */
const nestedStem = (parent: string, segment: string): string =>
  capStem(`${parent}${segment}`.normalize('NFKC'));

/** A scalar as a Python literal; an integer beyond 2^53 with its exact digits. */
function literal(value: unknown): string {
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value)) {
    return BigInt(value).toString();
  }
  return String(value);
}

/** What one render collects: the classes in declaration order, and the `typing` names used. */
interface RenderState {
  readonly classes: string[];
  readonly taken: Set<string>;
  /** Per stem, the next suffix to try, so a long run of collisions stays linear. */
  readonly nextSuffix: Map<string, number>;
  readonly typing: Set<TypingName>;
}

const newState = (typing: TypingName[] = []): RenderState => ({
  classes: [],
  taken: new Set(),
  nextSuffix: new Map(),
  typing: new Set(typing),
});

/** A class name from a stem, unique in this render (`Stem`, then `Stem2`, `Stem3`…). */
function allocate(stem: string, state: RenderState): string {
  const capped = capStem(stem);
  let name = capped;
  if (state.taken.has(name)) {
    let n = state.nextSuffix.get(capped) ?? 2;
    while (state.taken.has(`${capped}${n}`)) n++;
    name = `${capped}${n}`;
    state.nextSuffix.set(capped, n + 1);
  }
  state.taken.add(name);
  return name;
}

/** A node still to declare: its schema, the stem its shapes are named from, its `list[` depth. */
interface Job {
  readonly schema: unknown;
  readonly stem: string;
  readonly lists: number;
}

/** A node's type once its children's types are known. */
interface Pending {
  readonly children: readonly Job[];
  combine(types: readonly string[]): string;
}

/** One node: its type now, or the children it waits for. `named` is false for the bare entry. */
function visit(job: Job, named: boolean, state: RenderState): string | Pending {
  const node = job.schema as Record<string, unknown>;
  const any = (type: string) => {
    state.typing.add('Any');
    return type;
  };
  if (node.oneOf !== undefined) {
    const branches = node.oneOf as unknown[];
    return {
      children: branches.map((schema, i) => ({
        schema,
        stem: nestedStem(job.stem, `${i + 1}`),
        lists: job.lists,
      })),
      combine: (types) => types.join(' | '),
    };
  }
  const scalar = (broad: string) => {
    if (node.const === undefined && node.enum === undefined) return broad;
    state.typing.add('Literal');
    const values = node.const !== undefined ? [node.const] : (node.enum as unknown[]);
    return `Literal[${values.map(literal).join(', ')}]`;
  };
  switch (node.type) {
    case 'string':
      return scalar('str');
    case 'number':
      return scalar('float');
    case 'integer':
      return scalar('int');
    case 'boolean':
      return scalar('bool');
    case 'null':
      return 'None';
    case 'array':
      if (node.items === undefined) return any('list[Any]');
      // Past the cap one more `list[` would make the whole block a SyntaxError.
      if (job.lists >= MAX_LIST_DEPTH) return any('Any');
      return {
        children: [{ schema: node.items, stem: job.stem, lists: job.lists + 1 }],
        combine: ([item]) => `list[${item}]`,
      };
    case 'object':
      return visitObject(node, job, named, state);
    default:
      return any('Any');
  }
}

function visitObject(
  node: Record<string, unknown>,
  job: Job,
  named: boolean,
  state: RenderState,
): string | Pending {
  const fields = Object.entries(isRecord(node.properties) ? node.properties : {});
  const open = node.additionalProperties !== false;
  // No name to declare a class under, a field a class cannot declare, or any dict at all.
  if (!named || !fields.every(([field]) => isFieldName(field)) || (fields.length === 0 && open)) {
    state.typing.add('Any');
    return 'dict[str, Any]';
  }
  const name = allocate(job.stem, state);
  state.typing.add('TypedDict');
  const required = new Set(Array.isArray(node.required) ? node.required : []);
  return {
    // A field's annotation is a line of its own; 1 keeps room for `NotRequired[`.
    children: fields.map(([field, schema]) => ({
      schema,
      stem: nestedStem(name, classStem(field)),
      lists: 1,
    })),
    combine(types) {
      const lines = [`class ${name}(TypedDict):`];
      fields.forEach(([field, schema], i) => {
        const comment = oneLine(isRecord(schema) ? schema.description : undefined);
        if (comment !== undefined) lines.push(`${indent(1)}# ${comment}`);
        if (required.has(field)) lines.push(`${indent(1)}${field}: ${types[i]}`);
        else {
          state.typing.add('NotRequired');
          lines.push(`${indent(1)}${field}: NotRequired[${types[i]}]`);
        }
      });
      // TypedDict cannot say "open"; under mode "code" this line is the only place that does.
      if (open) lines.push(`${indent(1)}# Additional keys beyond those declared are allowed.`);
      if (lines.length === 1) lines.push(`${indent(1)}pass`);
      // Declared after its children, so every class is declared before it is named.
      state.classes.push(lines.join('\n'));
      return name;
    },
  };
}

/**
 * One schema as a Python type, its object shapes declared into `state` under names from `stem`
 * (`''`: nowhere to declare, so objects are `dict[str, Any]`). A schema outside the harness's
 * subset is `Any`, whole. Walks with its own stack: a deep schema cannot overflow the call stack.
 */
function renderType(schema: unknown, stem: string, state: RenderState): string {
  if (!isHarnessSubsetSchema(schema)) {
    state.typing.add('Any');
    return 'Any';
  }
  const named = stem !== '';
  const frames: { pending: Pending; types: string[] }[] = [];
  let result = visit({ schema, stem, lists: 0 }, named, state);
  for (;;) {
    if (typeof result !== 'string') {
      frames.push({ pending: result, types: [] });
    } else {
      const frame = frames.at(-1);
      if (frame === undefined) return result;
      frame.types.push(result);
    }
    const top = frames.at(-1) as { pending: Pending; types: string[] };
    const next = top.pending.children[top.types.length];
    if (next !== undefined) {
      result = visit(next, named, state);
    } else {
      frames.pop();
      result = top.pending.combine(top.types);
    }
  }
}

/**
 * One JSON Schema as a Python type expression, with nothing to declare classes into: an object
 * is `dict[str, Any]`, a schema outside the harness's subset `Any`. Never throws.
 */
export function jsonSchemaToPy(schema: unknown): string {
  return renderType(schema, '', newState());
}

const INSTRUCTIONS = `## Programs for run_code

Call \`run_code\` with \`code\`, the body of an async Python function (top-level \`await\` and \`return\` work), and \`description\`, a few words saying what the program does. Only two names below exist when the program runs: \`tools\` and \`ToolCallError\`. The rest describes types and is not defined at run time: pass arguments as plain \`dict\`s and \`list\`s (\`await tools.name({"field": 1})\`), never as a class (\`NameArgs(field=1)\` raises \`NameError\`). In the program:

- Call a tool with \`await tools.name(args)\`, or \`await tools["odd-name"](args)\` for a name listed below as a comment (not an identifier, a keyword, or starting with \`_\`). It returns the tool's JSON value, typed below. Arguments must be plain JSON.
- A tool call that fails raises \`ToolCallError\`: its \`toolName\` says which tool, its message why. Catch it (\`try\`/\`except\`) to recover and go on.
- Calls to read-only tools may run together (\`asyncio.gather\`); every other call runs alone, in the order made. Use \`await\` to order dependent work.
- Only what the program prints (\`print\`) or returns (plain JSON) comes back to you; an image a tool returns is attached after the run, and other tool results in between are not, so keep what you need and print or return that.

The tools:`;

/**
 * The `tools:sdk` prompt section for a Python runtime: the instructions, then the declarations of
 * every given tool in name order (an unchanged tool set renders the same text: a stable prompt
 * prefix), its argument and output shapes declared before the `Tools` protocol that names them.
 */
export function renderToolsSdkPy(schemas: readonly ToolSdkSchema[]): string {
  const sorted = [...schemas].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const state = newState(['Protocol']);
  const members: string[] = [];
  let methods = 0;
  for (const tool of sorted) {
    const args = renderType(tool.parameters, `${classStem(tool.name)}Args`, state);
    const output = renderType(tool.output, `${classStem(tool.name)}Output`, state);
    if (isMethodName(tool.name)) {
      // The docstring documents the method only as the first statement of its body.
      const doc = docstring(tool.description, 2);
      const head = `${indent(1)}async def ${tool.name}(self, args: ${args}) -> ${output}:`;
      members.push(doc.length > 0 ? head : `${head} ...`, ...doc);
      methods++;
    } else {
      members.push(`${indent(1)}# tools[${JSON.stringify(tool.name)}](args: ${args}) -> ${output}`);
      const comment = oneLine(tool.description);
      if (comment !== undefined) members.push(`${indent(1)}#   ${comment}`);
    }
  }
  // Comments are not statements: a protocol with no method needs a body.
  const body = (methods > 0 ? members : [`${indent(1)}pass`, ...members]).join('\n');
  const imports = TYPING.filter((name) => state.typing.has(name)).join(', ');
  const classes = state.classes.map((text) => `${text}\n\n`).join('');
  const declarations = [
    `from typing import ${imports}`,
    'class ToolCallError(Exception):\n    toolName: str',
    `${classes}class Tools(Protocol):\n${body}`,
    'tools: Tools',
  ].join('\n\n');
  return `${INSTRUCTIONS}\n\n\`\`\`python\n${declarations}\n\`\`\``;
}
