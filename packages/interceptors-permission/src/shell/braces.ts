/**
 * Bash's brace expansion of one word: `{a,b}` and sequences (`{1..3}`, `{a..e}`, `{0..10..2}`),
 * nested and side by side, in bash's order. A path rule must judge the words the program gets:
 * `cat {x,secrets/key}` reads `secrets/key`, which the word as a whole, read as one glob, does
 * not name (its `/` sits inside the braces).
 *
 * Quotes are already removed from the value, so a brace bash would keep (`'{a,b}'`) is expanded
 * too: that only adds words to judge. `undefined` when the word makes more than `limit` words.
 */
export function expandBraces(value: string, limit = 256): string[] | undefined {
  // The first open brace whose group closes and expands: an open brace whose group never closes
  // is a plain character, and a closed group that is neither a list nor a sequence is left as it
  // is, the search going on after it (`{..a}{1..3}` is `{..a}1` …, `{..{1..3}}` stays whole).
  let open = value.indexOf('{');
  while (open >= 0) {
    const end = ignored(value, open) ? -1 : closeOf(value, open);
    if (end < 0) {
      open = value.indexOf('{', open + 1);
      continue;
    }
    const inside = value.slice(open + 1, end);
    const list = split(inside);
    const parts = list.length > 1 ? list : sequence(inside, limit);
    if (parts === 'too many') return undefined;
    if (parts === undefined) {
      open = value.indexOf('{', end + 1);
      continue;
    }
    const before = value.slice(0, open);
    const rest = expandBraces(value.slice(end + 1), limit);
    if (rest === undefined) return undefined;
    const out: string[] = [];
    for (const part of parts) {
      const words = expandBraces(part, limit);
      if (words === undefined) return undefined;
      for (const word of words) for (const tail of rest) out.push(before + word + tail);
      if (out.length > limit) return undefined;
    }
    return out;
  }
  return [value];
}

/**
 * An open brace bash passes over: at the word's start or after a blank, and followed by a `}` or a
 * blank (`{},}` stays whole).
 */
const ignored = (value: string, open: number): boolean =>
  (open === 0 || /\s/.test(value[open - 1] as string)) && /^[\s}]/.test(value.slice(open + 1));

/**
 * Where the group opened at `open` closes, as bash's brace_gobbler finds it: at a `}` of the
 * group's own level once a comma, or a `..` not right before a `}`, has been seen at that level
 * (before that, a `}` is a plain character: `{a},}` is `a}` and nothing). -1 when it never does.
 */
function closeOf(value: string, open: number): number {
  let level = 0;
  let separators = 0;
  for (let i = open + 1; i < value.length; i++) {
    const c = value[i];
    if (c === '}' && level === 0 && separators > 0) return i;
    if (c === '{') level++;
    else if (c === '}' && level > 0) level--;
    else if (
      level === 0 &&
      (c === ',' || (c === '.' && value.startsWith('..', i) && value[i + 2] !== '}'))
    )
      separators++;
  }
  return -1;
}

/** A group's text split at the commas of its own level (`a,{b,c}` is `a` and `{b,c}`). */
function split(inside: string): string[] {
  const parts: string[] = [];
  let level = 0;
  let from = 0;
  for (let i = 0; i < inside.length; i++) {
    const c = inside[i];
    if (c === '{') level++;
    else if (c === '}' && level > 0) level--;
    else if (c === ',' && level === 0) {
      parts.push(inside.slice(from, i));
      from = i + 1;
    }
  }
  parts.push(inside.slice(from));
  return parts;
}

/**
 * `1..5`, `-2..2..2`, `a..e`, `z..a..2` as bash counts them; `undefined` for anything else, and
 * `'too many'` for a sequence of more than `limit` words (never listed: `{1..1000000000}`).
 */
function sequence(inside: string, limit: number): string[] | 'too many' | undefined {
  const numbers = /^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$/.exec(inside);
  const letters = /^([a-zA-Z])\.\.([a-zA-Z])(?:\.\.(-?\d+))?$/.exec(inside);
  const match = numbers ?? letters;
  if (!match) return undefined;
  const from = numbers ? Number(match[1]) : (match[1] as string).charCodeAt(0);
  const to = numbers ? Number(match[2]) : (match[2] as string).charCodeAt(0);
  const step = Math.abs(Number(match[3] ?? 1)) || 1;
  const count = Math.floor(Math.abs(to - from) / step) + 1;
  if (count > limit) return 'too many';
  const sign = to >= from ? 1 : -1;
  // Zero padding as bash does it: `{01..10}` pads every number to the wider endpoint's width.
  const [first, last] = [match[1] as string, match[2] as string];
  const padded = numbers !== null && (/^-?0\d/.test(first) || /^-?0\d/.test(last));
  const width = padded ? Math.max(first.length, last.length) : 0;
  const out: string[] = [];
  for (let k = 0; k < count; k++) {
    const n = from + sign * step * k;
    if (!numbers) out.push(String.fromCharCode(n));
    else {
      const digits = String(Math.abs(n)).padStart(width - (n < 0 ? 1 : 0), '0');
      out.push(n < 0 ? `-${digits}` : digits);
    }
  }
  return out;
}
