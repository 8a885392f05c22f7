import type { ShellNode } from './parser';

/** One word of a command after quote removal, and whether its value is known before it runs. */
export interface ShellWord {
  /** The value after quote removal (for a non-literal word: its source text). */
  readonly value: string;
  /** No expansion, substitution or unknown construct: the value is exactly what the program gets. */
  readonly literal: boolean;
  /** Contains an unquoted glob or brace pattern (the shell may expand it into file names). */
  readonly glob: boolean;
  /** The source text. */
  readonly text: string;
}

/** A literal word made by this package (the `xargs` input, a `find -exec` placeholder). */
export const syntheticWord = (text: string, literal = false): ShellWord => ({
  value: text,
  literal,
  glob: false,
  text,
});

const NON_LITERAL = new Set([
  'simple_expansion',
  'expansion',
  'command_substitution',
  'process_substitution',
  'arithmetic_expansion',
]);

interface Acc {
  value: string;
  literal: boolean;
  glob: boolean;
  /** Unquoted text, to spot brace expansion split over several word nodes. */
  unquoted: string;
}

const unquotedWord = (text: string, acc: Acc, first: boolean): void => {
  acc.unquoted += text;
  // `~+` is $PWD: the directory the command runs in, which `.` names too.
  if (first && (text === '~+' || text.startsWith('~+/'))) {
    acc.value += '.';
    text = text.slice(2);
    first = false;
  }
  if (first && text.startsWith('~')) {
    const slash = text.indexOf('/');
    const user = slash < 0 ? text.slice(1) : text.slice(1, slash);
    // `~user` depends on the password database: not known before it runs.
    if (user !== '') acc.literal = false;
  }
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '\\') {
      const next = text[i + 1];
      i++;
      if (next === undefined || next === '\n') continue;
      acc.value += next;
      continue;
    }
    if (c === '*' || c === '?' || c === '[') acc.glob = true;
    if (c === '$' || c === '`') acc.literal = false;
    acc.value += c;
  }
};

const doubleQuoted = (text: string, acc: Acc): void => {
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    const next = text[i + 1];
    if (c === '\\' && next !== undefined && '$`"\\\n'.includes(next)) {
      if (next !== '\n') acc.value += next;
      i++;
      continue;
    }
    if (c === '$' || c === '`') acc.literal = false;
    acc.value += c;
  }
};

const SIMPLE_ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/** Decodes `$'...'` as bash does; `undefined` for an escape it does not know. */
export function decodeAnsiC(body: string): string | undefined {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = body[++i];
    if (e === undefined) return undefined;
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      out += simple;
      continue;
    }
    const digits = (re: RegExp, max: number, from: number): string => {
      let d = '';
      while (
        d.length < max &&
        from + d.length < body.length &&
        re.test(body[from + d.length] as string)
      ) {
        d += body[from + d.length];
      }
      return d;
    };
    if (e >= '0' && e <= '7') {
      const d = e + digits(/[0-7]/, 2, i + 1);
      out += String.fromCharCode(Number.parseInt(d, 8) & 0xff);
      i += d.length - 1;
    } else if (e === 'x' || e === 'u' || e === 'U') {
      const d = digits(/[0-9a-fA-F]/, e === 'x' ? 2 : e === 'u' ? 4 : 8, i + 1);
      if (d === '') return undefined;
      const code = Number.parseInt(d, 16);
      if (code > 0x10ffff) return undefined;
      out += String.fromCodePoint(code);
      i += d.length;
    } else if (e === 'c') {
      const ch = body[++i];
      if (ch === undefined) return undefined;
      out += String.fromCharCode(ch.charCodeAt(0) & 0x1f);
    } else {
      out += `\\${e}`;
    }
  }
  return out;
}

const visit = (node: ShellNode, src: string, acc: Acc, first: boolean): void => {
  const text = src.slice(node.start, node.end);
  switch (node.type) {
    case 'word':
      unquotedWord(text, acc, first);
      return;
    case 'number':
      acc.value += text;
      return;
    case 'raw_string':
      acc.value += text.slice(1, -1);
      return;
    case 'string':
    case 'translated_string': {
      // Walk the whole quoted range: the parser leaves some content (newlines) between children.
      const open = node.type === 'string' ? 1 : 2;
      let pos = node.start + open;
      const stop = node.end - 1;
      for (const child of node.children) {
        if (child.start < pos || child.end > stop) continue;
        if (child.start > pos) doubleQuoted(src.slice(pos, child.start), acc);
        if (child.type === 'string_content' || !child.named)
          doubleQuoted(src.slice(child.start, child.end), acc);
        else visit(child, src, acc, false);
        pos = child.end;
      }
      if (pos < stop) doubleQuoted(src.slice(pos, stop), acc);
      return;
    }
    case 'ansi_c_string': {
      const decoded = decodeAnsiC(text.slice(2, -1));
      if (decoded === undefined) acc.literal = false;
      acc.value += decoded ?? text;
      return;
    }
    case 'concatenation': {
      let end = node.start;
      node.children.forEach((child, i) => {
        // Text between two parts of one word (a blank: `.env ``rm`, where the parser joined what
        // bash splits into two words) means the parser's reading is not bash's: not known.
        if (child.start > end) acc.literal = false;
        end = child.end;
        visit(child, src, acc, first && i === 0);
      });
      if (end < node.end) acc.literal = false;
      return;
    }
    case 'brace_expression':
    case 'extglob_pattern':
      acc.glob = true;
      acc.value += text;
      return;
    default:
      if (!node.named && text.length > 0 && !NON_LITERAL.has(node.type)) {
        // An anonymous token inside a word (`$` of `$"..."`): keep its text, nothing expands. A
        // backquote is the edge of a command substitution (an empty one, ``): never literal.
        if (node.type === '$' || node.type === '`') acc.literal = false;
        acc.value += text;
        return;
      }
      acc.literal = false;
      acc.value += text;
  }
};

/** Quote removal over one word node, tracking whether the result is known before it runs. */
export function evalWord(node: ShellNode, src: string): ShellWord {
  const acc: Acc = { value: '', literal: true, glob: false, unquoted: '' };
  visit(node, src, acc, true);
  // `{a,b}` and `{1..3}` expand to several words: treat like a glob over those names.
  const glob = acc.glob || /\{[^}]*(,|\.\.)[^}]*\}/.test(acc.unquoted);
  return { value: acc.value, literal: acc.literal, glob, text: src.slice(node.start, node.end) };
}

/**
 * A whole word that is a process substitution (`<(cmd)`, `>(cmd)`): bash passes `/dev/fd/N`, a
 * pipe to or from a command that is judged on its own; never an option, never a file on disk.
 */
export const isProcessSubstitution = (w: ShellWord): boolean =>
  !w.literal && /^[<>]\([\s\S]*\)$/.test(w.text);
