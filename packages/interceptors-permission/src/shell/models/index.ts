import { baseName } from '../names';
import type { ShellWord } from '../words';
import { gitModel } from './git';
import type { ProgramEffects } from './model';
import { MODELS } from './programs';

export type { ProgramEffects, SideWrite } from './model';

/**
 * Programs without a model that cannot change anything or run anything, whatever their options:
 * plan mode runs them (their file operands are still checked against the path rules).
 */
const READ_ONLY = new Set([
  'cat',
  'head',
  'tail',
  'wc',
  'ls',
  'pwd',
  'stat',
  'file',
  'du',
  'df',
  'nl',
  'cut',
  'tr',
  'basename',
  'dirname',
  'realpath',
  'readlink',
  'whoami',
  'id',
  'uname',
  'which',
  'printenv',
  'diff',
  'cmp',
  'comm',
  'tac',
  'rev',
  'md5sum',
  'sha1sum',
  'sha256sum',
  'sha512sum',
  'cksum',
  'true',
  'false',
  ':',
  'cd',
  'pushd',
  'popd',
  'type',
  'seq',
  'expr',
  'date',
  'uptime',
  'nproc',
  'strings',
  'od',
  'hexdump',
  'xxd',
  'base64',
  'column',
  'fold',
  'fmt',
  'paste',
  'join',
]);

/** What `argv` does by its program's model, or `undefined` when the program has none. */
export function modelCommand(argv: readonly ShellWord[]): ProgramEffects | undefined {
  const name = argv[0];
  if (name === undefined || !name.literal) return undefined;
  const base = baseName(name.value);
  if (base === 'git') return gitModel(argv);
  return Object.hasOwn(MODELS, base) ? MODELS[base]?.(argv) : undefined;
}

/**
 * Whether date's words may set the clock: `-s` (also after other letters, `-us`, or abbreviated,
 * `--s=…`: the only long option of date that begins with s), or an operand that is not `+FORMAT`
 * (`date 0101000020` sets it too).
 */
const dateSets = (argv: readonly ShellWord[]): boolean => {
  let options = true;
  for (let i = 1; i < argv.length; i++) {
    const v = (argv[i] as ShellWord).value;
    if (options && v === '--') options = false;
    else if (options && /^(-[Ru]*s|--s)/.test(v)) return true;
    // The value of -d, -f or -r (`date -d yesterday`) is no operand.
    else if (options && /^(-[Ru]*[dfr]|--date|--file|--reference)$/.test(v)) i++;
    else if ((!options || !v.startsWith('-')) && !v.startsWith('+')) return true;
  }
  return false;
};

/** Whether a program without a model is read-only whatever its words. */
export const readOnlyWithoutModel = (argv: readonly ShellWord[]): boolean => {
  const name = argv[0];
  if (name === undefined || !name.literal) return false;
  const base = baseName(name.value);
  if (base === 'date' && dateSets(argv)) return false;
  // `xxd a b` writes b, and so does `xxd - b` (`-` is standard input).
  if (base === 'xxd' && argv.filter((w) => w.value === '-' || !w.value.startsWith('-')).length > 2)
    return false;
  return READ_ONLY.has(base);
};
