/**
 * How env reads its own options (GNU getopt: clusters, attached values, abbreviated long names),
 * for the unwrapping of `env … COMMAND`, and the quoting of the words `env -S` joins into a line.
 */
import { type ShellWord, syntheticWord } from './words';

/** A word quoted for a shell line: the word itself, whatever it holds. */
export const shellQuote = (value: string): string => `'${value.replaceAll("'", `'\\''`)}'`;

/** What one word of env's options is, read as GNU env's getopt reads it. */
interface EnvOption {
  /** `-S` / `--split-string`: its value attached (`-Scat`, `--split-string=cat`), else the next word. */
  readonly split?: boolean;
  readonly value?: ShellWord | undefined;
  /** `-C` / `--chdir`: runs the command elsewhere. */
  readonly chdir?: boolean;
  /** The option's value is the next word. */
  readonly takesNext?: boolean;
}

const ENV_LONG = [
  'argv0',
  'block-signal',
  'chdir',
  'debug',
  'default-signal',
  'ignore-environment',
  'ignore-signal',
  'list-signal-handling',
  'null',
  'split-string',
  'unset',
];
/** Long options of env that take a value (separated unless given with `=`). */
const ENV_LONG_VALUE = new Set(['argv0', 'chdir', 'split-string', 'unset']);

/**
 * env's reading of an option word: `undefined` for a word that is no option (a variable or the
 * command), `'unknown'` for one env would not take as the model reads it (a cluster holding an
 * unknown letter, an ambiguous or unknown long option). Short options cluster (`-iS cat`, `-Scat`)
 * and long ones may be abbreviated (`--sp=cat`), as getopt allows.
 */
export function envOption(word: string): EnvOption | 'unknown' | undefined {
  if (!word.startsWith('-')) return undefined;
  // A lone `-` is `-i` (an empty environment).
  if (word === '-') return {};
  if (word.startsWith('--')) {
    const eq = word.indexOf('=');
    const name = word.slice(2, eq < 0 ? undefined : eq);
    const matches = ENV_LONG.filter((long) => long.startsWith(name));
    const long = matches.includes(name) ? name : matches.length === 1 ? matches[0] : undefined;
    if (long === undefined || name === '') return 'unknown';
    const attached = eq < 0 ? undefined : syntheticWord(word.slice(eq + 1), true);
    const takesNext = ENV_LONG_VALUE.has(long) && attached === undefined;
    if (long === 'split-string') return { split: true, value: attached, takesNext };
    if (long === 'chdir') return { chdir: true, takesNext };
    return { takesNext };
  }
  for (let at = 1; at < word.length; at++) {
    const letter = word[at] as string;
    if ('i0v'.includes(letter)) continue;
    const rest = word.slice(at + 1);
    const attached = rest === '' ? undefined : syntheticWord(rest, true);
    if (letter === 'S') return { split: true, value: attached, takesNext: attached === undefined };
    if (letter === 'C') return { chdir: true, takesNext: attached === undefined };
    if (letter === 'u' || letter === 'a') return { takesNext: attached === undefined };
    return 'unknown';
  }
  return {};
}
