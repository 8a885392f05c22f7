import type { RE2JS } from 're2js';
import { loadModule } from './schema-load';

/**
 * JSON Schema's `pattern` is an ECMA-262 regular expression. V8 runs those on a backtracking
 * engine, where `^(a+)+$` against forty `a`s and a `!` takes minutes and no timer can interrupt
 * it. Every pattern the registry runs (`pattern`, `patternProperties`, formats) is therefore
 * translated to RE2 syntax and run on re2js, a linear-time engine: its time is bounded by the
 * pattern's size times the input's, whatever the pattern. What RE2 cannot express (backreferences,
 * lookahead and lookbehind) is refused, so the schema is refused at registration.
 *
 * The translation keeps ECMAScript's meaning where the two syntaxes differ: `.` excludes the
 * four line terminators, `\s` is ECMAScript's Unicode white space (RE2's is ASCII only), `\u`
 * escapes become `\x{…}`, `[^]` and `[]` mean "any" and "nothing", a `[` inside a class is a
 * literal (not a POSIX class), and named groups lose their names (only whether a match exists
 * matters here). The pattern is first parsed by V8 in `u` mode (parsing never backtracks), so
 * the translator only ever sees well-formed syntax.
 */

/** Why a pattern cannot run on the linear-time engine; names the construct and what to do. */
export class PatternRefusal extends Error {}

const WHITE_SPACE =
  '\\t\\n\\x{b}\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}';
const DOT = '[^\\n\\r\\x{2028}\\x{2029}]';
const ANY = '[\\x{0}-\\x{10ffff}]';
const NOTHING = '[^\\x{0}-\\x{10ffff}]';
const SYNTAX = new Set('^$\\.*+?()[]{}|/-');

const hex = (code: number): string => `\\x{${code.toString(16)}}`;

/** `Script=Greek` → `Greek`, `gc=Lu` → `Lu`; RE2 knows the short and script names only. */
const propertyName = (body: string): string => {
  const eq = body.indexOf('=');
  if (eq < 0) return body;
  const key = body.slice(0, eq);
  if (key === 'Script' || key === 'sc' || key === 'General_Category' || key === 'gc') {
    return body.slice(eq + 1);
  }
  throw new PatternRefusal(`the Unicode property \\p{${body}} has no RE2 equivalent`);
};

/**
 * Translates an ECMAScript (`u` mode) pattern into RE2 syntax with the same meaning for a
 * search. Throws {@link PatternRefusal} for constructs RE2 cannot run in linear time.
 */
export const translatePattern = (pattern: string): string => {
  try {
    // Parsing only: a RegExp that is never executed cannot backtrack.
    new RegExp(pattern, 'u');
  } catch (error) {
    throw new PatternRefusal(
      `it is not a valid ECMAScript regular expression (${(error as Error).message})`,
    );
  }
  let out = '';
  let i = 0;
  let inClass = false;
  const n = pattern.length;
  /** Reads `\uXXXX` (and a following low surrogate) or `\u{…}` at `i`, past the backslash. */
  const unicodeEscape = (): number => {
    if (pattern[i] === '{') {
      const end = pattern.indexOf('}', i);
      const code = Number.parseInt(pattern.slice(i + 1, end), 16);
      i = end + 1;
      return code;
    }
    let code = Number.parseInt(pattern.slice(i, i + 4), 16);
    i += 4;
    if (code >= 0xd800 && code <= 0xdbff && pattern.startsWith('\\u', i)) {
      const low = Number.parseInt(pattern.slice(i + 2, i + 6), 16);
      if (low >= 0xdc00 && low <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
        i += 6;
      }
    }
    if (code >= 0xd800 && code <= 0xdfff) {
      throw new PatternRefusal('a lone surrogate escape cannot be matched by RE2');
    }
    return code;
  };
  while (i < n) {
    const c = pattern[i]!;
    if (c === '\\') {
      const e = pattern[i + 1]!;
      i += 2;
      if (e === 'd' || e === 'D' || e === 'w' || e === 'W') out += `\\${e}`;
      else if (e === 'b' || e === 'B') out += inClass ? (e === 'b' ? hex(8) : '\\B') : `\\${e}`;
      else if (e === 's') out += inClass ? WHITE_SPACE : `[${WHITE_SPACE}]`;
      else if (e === 'S') {
        if (inClass) {
          throw new PatternRefusal('\\S inside a character class has no RE2 equivalent');
        }
        out += `[^${WHITE_SPACE}]`;
      } else if (e === 'f' || e === 'n' || e === 'r' || e === 't' || e === 'v') out += `\\${e}`;
      else if (e === 'c') {
        out += hex(pattern.charCodeAt(i) % 32);
        i++;
      } else if (e === '0') out += hex(0);
      else if (e >= '1' && e <= '9') {
        throw new PatternRefusal(`the backreference \\${e} cannot run in linear time`);
      } else if (e === 'k') {
        throw new PatternRefusal('a named backreference (\\k<…>) cannot run in linear time');
      } else if (e === 'x') {
        out += hex(Number.parseInt(pattern.slice(i, i + 2), 16));
        i += 2;
      } else if (e === 'u') out += hex(unicodeEscape());
      else if (e === 'p' || e === 'P') {
        const end = pattern.indexOf('}', i);
        out += `\\${e}{${propertyName(pattern.slice(i + 1, end))}}`;
        i = end + 1;
      } else if (e === '/') out += '/';
      else if (SYNTAX.has(e)) out += `\\${e}`;
      else out += hex(e.codePointAt(0)!);
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c === '[' ? '\\[' : c;
      i++;
      continue;
    }
    if (c === '[') {
      if (pattern.startsWith('[^]', i)) {
        out += ANY;
        i += 3;
      } else if (pattern.startsWith('[]', i)) {
        out += NOTHING;
        i += 2;
      } else {
        inClass = true;
        const negated = pattern[i + 1] === '^';
        out += negated ? '[^' : '[';
        i += negated ? 2 : 1;
      }
      continue;
    }
    if (c === '.') {
      out += DOT;
      i++;
      continue;
    }
    if (c === '(' && pattern[i + 1] === '?') {
      const next = pattern[i + 2];
      if (next === '=' || next === '!' || (next === '<' && /[=!]/.test(pattern[i + 3] ?? ''))) {
        throw new PatternRefusal(
          'lookahead and lookbehind ((?=, (?!, (?<=, (?<!) cannot run in linear time',
        );
      }
      if (next === '<') {
        // A named group: the name does not change whether the pattern matches.
        i = pattern.indexOf('>', i) + 1;
        out += '(';
        continue;
      }
    }
    const code = pattern.codePointAt(i)!;
    out += String.fromCodePoint(code);
    i += code > 0xffff ? 2 : 1;
  }
  return out;
};

/** Why a pattern is refused when RE2 itself rejects it (here, or on the compiling worker). */
export const re2Refusal = (message: string): string => `RE2 cannot run it (${message})`;

type Re2Module = typeof import('re2js');
let re2: Re2Module | undefined;

/** A compiled linear-time pattern with the `test` Ajv calls (a search, as ECMAScript's `test`). */
export interface LinearPattern {
  test(input: string): boolean;
  toString(): string;
}

/**
 * Patterns compiled lately, by the flags that change matching (`i`, `m`) and source: a schema's
 * patterns are asked for twice (checked with their path before Ajv sees the schema, without
 * flags, then by Ajv, with `u`), and schemas repeat patterns.
 */
const cache = new Map<string, LinearPattern>();
const CACHED = 256;

/**
 * Compiles an ECMAScript pattern (with flags `i`, `m` and `u`; `u` is implied) for the
 * linear-time engine, loading it on first use. Throws {@link PatternRefusal} naming the construct.
 */
export const linearPattern = (pattern: string, flags = ''): LinearPattern => {
  // `u` is implied, so it does not make another entry (Ajv asks with it, the checks without).
  const matching = `${flags.includes('i') ? 'i' : ''}${flags.includes('m') ? 'm' : ''}`;
  const key = `${matching}/${pattern}`;
  const found = cache.get(key);
  if (found) return found;
  re2 ??= loadModule<Re2Module>('re2js');
  const { RE2JS: Engine } = re2;
  let compiled: RE2JS;
  try {
    compiled = Engine.compile(
      translatePattern(pattern),
      (matching.includes('i') ? Engine.CASE_INSENSITIVE : 0) |
        (matching.includes('m') ? Engine.MULTILINE : 0),
    );
  } catch (error) {
    if (error instanceof PatternRefusal) throw error;
    throw new PatternRefusal(re2Refusal((error as Error).message));
  }
  const shown = `/${pattern}/${matching}`;
  const made: LinearPattern = {
    test: (input: string) => compiled.test(input),
    toString: () => shown,
  };
  cache.set(key, made);
  if (cache.size > CACHED) cache.delete(cache.keys().next().value as string);
  return made;
};
