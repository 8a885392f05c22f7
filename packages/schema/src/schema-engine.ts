import type { Ajv, KeywordCxt, Options } from 'ajv';

/** What an Ajv module exports that the engine needs: its code templates. */
export interface AjvCodegen {
  readonly _: (strings: TemplateStringsArray, ...values: unknown[]) => unknown;
  readonly str: (strings: TemplateStringsArray, ...values: unknown[]) => unknown;
}

/** A format as the engine is given it: `true` (an annotation) or Ajv's object form. */
export type EngineFormat =
  | true
  | {
      readonly type?: 'string' | 'number';
      readonly validate: (value: never) => boolean;
      readonly compare?: (a: string, b: string) => number | undefined;
    };

/** How to make an engine; the functions are the real ones on the main thread, stand-ins in a worker. */
export interface EngineParts {
  readonly ownProperties: boolean;
  /** Keep the generated code, for `ajv/dist/standalone` (only in the compiling worker). */
  readonly source: boolean;
  readonly formats: readonly (readonly [string, EngineFormat])[];
  /** Ajv's `code.regExp`: every pattern on the linear-time engine. */
  readonly regExp: ((pattern: string, flags: string) => { test(input: string): boolean }) & {
    readonly code: string;
  };
  /** The indexes `[j, i]` of the first two equal items of an array, or `undefined`. */
  readonly duplicateOf: (items: readonly unknown[]) => readonly [number, number] | undefined;
  readonly warn: (message: string) => void;
}

/**
 * Makes one validation engine under the registry's rules. It is also the code of the compiling
 * worker (see `compile-worker.ts`, which sends this function's text to the worker), so it refers
 * to nothing outside itself: everything comes in through its arguments.
 *
 * Options, and why:
 * - `strict: false`: MCP servers send keywords and formats no validator knows; they are
 *   annotations and are ignored, as JSON Schema says.
 * - `allErrors: true`: a model fixes every problem in one retry only if it hears of all of them.
 * - `ownProperties` only for schemas that need it (see `namesPrototypeMember`).
 * - `meta: false`: no meta-schemas to compile (the schema was checked against its meta-schema,
 *   once, by the shared checking engine), so an engine is cheap enough to make one per schema:
 *   a shared engine keeps the code of every schema it ever compiled (`removeSchema` does not
 *   release it), which grew the heap by tens of megabytes per few thousand tools.
 * - `addUsedSchema`: each schema has an engine of its own, so no two `$id`s collide; Ajv needs
 *   the root added to resolve `{"$ref": "#"}` inside it (recursive schemas).
 * - `inlineRefs: false`: every `$ref` target becomes one function, called where it is referred
 *   to. Inlined (Ajv's default), a small definition is pasted at each reference: 100 references
 *   to one 60-property definition, 4 KB of schema, made 4.3 MB of code and took 1.3 s to compile
 *   (3,000 fit in the budget); now 75 KB and 20 ms.
 * - `code.optimize: false`: measured, halves compile time without slowing validation.
 * - The functions the generated code calls are named as `require("dsh:…")`, so that the code can
 *   be compiled in a worker and run here (`ajv/dist/standalone`).
 * - No `$data`, `verbose`, `useDefaults`, `coerceTypes`, `removeAdditional`, `discriminator`,
 *   `loadSchema`: validation is synchronous, never mutates arguments, and fetches nothing.
 * - `uniqueItems` is replaced by a linear-time check (`duplicateOf`): Ajv compares every pair of
 *   items that are not all of one scalar type (1,000 small objects: half a million comparisons).
 */
export function makeEngine(
  Class: new (options: Options) => Ajv,
  codegen: AjvCodegen,
  parts: EngineParts,
): Ajv {
  const { _, str } = codegen;
  const code: NonNullable<Options['code']> = {
    optimize: false,
    regExp: parts.regExp as never,
    source: parts.source,
    ...(parts.source ? { formats: _`require("dsh:formats")` as never } : {}),
  };
  const ajv = new Class({
    strict: false,
    allErrors: true,
    ownProperties: parts.ownProperties,
    meta: false,
    addUsedSchema: true,
    inlineRefs: false,
    validateSchema: false,
    code,
    logger: {
      log: () => {},
      warn: (...args: unknown[]) => parts.warn(args.join(' ')),
      error: () => {},
    },
  });
  for (const [name, format] of parts.formats) {
    ajv.addFormat(name, format as Parameters<Ajv['addFormat']>[1]);
  }
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword({
    keyword: 'uniqueItems',
    type: 'array',
    schemaType: 'boolean',
    error: {
      message: ({ params }) =>
        str`must NOT have duplicate items (items ## ${params.j} and ${params.i} are identical)` as never,
      params: ({ params }) => _`{i: ${params.i}, j: ${params.j}}` as never,
    },
    code(cxt: KeywordCxt) {
      if (cxt.schema !== true) return;
      const { gen, data } = cxt;
      const check = gen.scopeValue('func', {
        ref: parts.duplicateOf,
        code: _`require("dsh:duplicateOf")` as never,
      });
      const found = gen.const('dup', _`${check}(${data})` as never);
      cxt.setParams({ i: _`${found}[1]` as never, j: _`${found}[0]` as never });
      cxt.fail(_`${found} !== undefined` as never);
    },
  });
  return ajv;
}
