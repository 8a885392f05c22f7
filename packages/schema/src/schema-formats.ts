import { loadModule } from './schema-load';
import { linearPattern } from './schema-regex';

/** A format as Ajv's `addFormat` takes it: a check on strings (or numbers), and an order. */
export interface FormatDefinition {
  readonly type?: 'string' | 'number';
  readonly validate: (value: never) => boolean;
  readonly compare?: (a: string, b: string) => number | undefined;
}

type SourceFormat =
  | true
  | RegExp
  | ((value: string) => boolean)
  | { type?: 'string' | 'number'; validate: RegExp | ((value: never) => boolean); compare?: never };

const fromRegExp = (rx: RegExp): ((value: string) => boolean) => {
  const linear = linearPattern(rx.source, rx.flags);
  return (value) => linear.test(value);
};

/**
 * Formats ajv-formats validates with a regular expression that RE2 cannot express (lookahead),
 * rewritten as a linear-time pattern plus plain string checks with the same meaning.
 */
const rewritten = (): Record<string, (value: string) => boolean> => {
  const duration = linearPattern(
    '^P((\\d+Y)?(\\d+M)?(\\d+D)?(T(\\d+H)?(\\d+M)?(\\d+S)?)?|(\\d+W)?)$',
  );
  const hostname = linearPattern(
    '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\\.[a-z0-9](?:[-0-9a-z]{0,61}[0-9a-z])?)*\\.?$',
    'i',
  );
  const byte = linearPattern(
    '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$',
    'm',
  );
  return {
    // (?!$) after P: something follows; T(?=\d): a digit follows T.
    duration: (value) => {
      if (value === 'P' || !duration.test(value)) return false;
      const t = value.indexOf('T');
      const next = t < 0 ? 48 : value.charCodeAt(t + 1);
      return next >= 48 && next <= 57;
    },
    // (?=.{1,253}\.?$): at most 253 characters before an optional final dot.
    hostname: (value) =>
      value.length - (value.endsWith('.') ? 1 : 0) <= 253 && hostname.test(value),
    byte: (value) => byte.test(value),
  };
};

/**
 * Formats Ajv knows that use regular expressions on argument values (`url`, with its chains of
 * lookahead, is left out: it is not a JSON Schema format, and an unknown format is an annotation).
 */
const LEFT_OUT = new Set(['url']);

let table: ReadonlyMap<string, FormatDefinition | true> | undefined;

/**
 * The formats every compiled schema validates, made on first use: ajv-formats' "fast" set (plain
 * patterns, no backtracking helpers), every pattern recompiled for the linear-time engine, and
 * the three that need lookahead rewritten. Functions that use no pattern (`int32`, `regex`,
 * which only parses its value) are kept as they are.
 */
export const linearFormats = (): ReadonlyMap<string, FormatDefinition | true> => {
  if (table) return table;
  const { fastFormats } = loadModule<{ fastFormats: Record<string, SourceFormat> }>(
    'ajv-formats/dist/formats.js',
  );
  const special = rewritten();
  const made = new Map<string, FormatDefinition | true>();
  for (const [name, format] of Object.entries(fastFormats)) {
    if (LEFT_OUT.has(name)) continue;
    const own = special[name];
    if (own) made.set(name, { type: 'string', validate: own });
    else if (format === true) made.set(name, true);
    else if (format instanceof RegExp)
      made.set(name, { type: 'string', validate: fromRegExp(format) });
    else if (typeof format === 'function') made.set(name, { type: 'string', validate: format });
    else {
      const { type = 'string', validate, compare } = format;
      made.set(name, {
        type,
        validate: validate instanceof RegExp ? fromRegExp(validate) : validate,
        ...(compare !== undefined && { compare }),
      });
    }
  }
  table = made;
  return table;
};
