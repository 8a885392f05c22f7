import { FILE_PROGRAMS, RECURSIVE_BY_DEFAULT } from './file-programs';
import { baseName } from './names';
import { type ShellWord, syntheticWord } from './words';

/** Files a command reads and writes, as far as its program is known. */
export interface Operands {
  readonly reads: ShellWord[];
  readonly writes: ShellWord[];
  /** Whether the program is one of {@link FILE_PROGRAMS} (its unknown operands may be files). */
  readonly known: boolean;
  /** Whether directory operands are read with everything inside them (`grep -r`, `cp -r`, `tar`). */
  readonly recursive: boolean;
}

/**
 * The part of an option word that is a file (`-fFILE`, `--file=FILE`): a glob or brace in the word
 * stays one in the part (`-f{x,.env}` reads x and .env), for the path rules to judge as a glob.
 */
const valuePart = (word: ShellWord, text: string): ShellWord => ({
  ...syntheticWord(text, true),
  glob: word.glob,
});

/**
 * The file operands of one command. Over-approximates on purpose: a word that might be a file is
 * treated as one (checking a non-file against a deny rule costs nothing; missing a file would let a
 * read through). For programs not in the table, literal operands are still returned as reads.
 */
export function fileOperands(words: readonly ShellWord[]): Operands {
  const program = baseName(words[0]?.value ?? '');
  // An own entry only: `constructor` or `__proto__` names no program of the table.
  const spec = Object.hasOwn(FILE_PROGRAMS, program) ? FILE_PROGRAMS[program] : undefined;
  const argv = spec?.oldStyleValues ? expandOldStyle(words, spec.oldStyleValues) : words;
  const reads: ShellWord[] = [];
  const writes: ShellWord[] = [];
  const operands: ShellWord[] = [];
  const values = new Set(spec?.values ?? []);
  const readOpts = new Set(spec?.readOpts ?? []);
  const writeOpts = new Set(spec?.writeOpts ?? []);
  const scriptOpts = new Set(spec?.scriptOpts ?? []);
  const firstIsFileOpts = new Set(spec?.firstIsFileOpts ?? []);
  let scriptGiven = false;
  let firstIsFile = false;
  let inPlace = false;
  let optionsDone = false;
  for (let i = 1; i < argv.length; i++) {
    const w = argv[i] as ShellWord;
    const v = w.value;
    if (!optionsDone && w.literal && v === '--') {
      optionsDone = true;
      continue;
    }
    if (!optionsDone && w.literal && v.startsWith('-') && v !== '-') {
      const eq = v.indexOf('=');
      const opt = eq < 0 ? v : v.slice(0, eq);
      if (scriptOpts.has(opt)) scriptGiven = true;
      if (firstIsFileOpts.has(opt)) firstIsFile = true;
      if (
        spec?.inPlace &&
        (opt === '-i' || opt.startsWith('--in-place') || /^-[a-zA-Z]*i/.test(opt))
      )
        inPlace = true;
      const target = writeOpts.has(opt) ? writes : readOpts.has(opt) ? reads : undefined;
      if (eq >= 0) {
        const value = valuePart(w, v.slice(eq + 1));
        (target ?? (values.has(opt) ? undefined : reads))?.push(value);
        continue;
      }
      if (values.has(opt) || target) {
        const next = argv[i + 1];
        if (next !== undefined) {
          if (target) target.push(next);
          // `-e PATTERN`: a pattern, not a file.
          i++;
        }
        continue;
      }
      // A cluster of short options, read as getopt reads it: letters are flags up to the first
      // option that takes a value, which takes the rest of the word (`-fFILE`, `-vf.env`,
      // `-cosrc/a.ts`) or else the next word (`-co src/a.ts`). A letter not in the table counts as
      // a flag: if it took a value, what follows is read as more letters, which can only find
      // more files.
      if (!v.startsWith('--')) {
        for (let k = 1; k < v.length; k++) {
          const short = `-${v[k]}`;
          const into = writeOpts.has(short) ? writes : readOpts.has(short) ? reads : undefined;
          if (!into && !values.has(short) && !scriptOpts.has(short)) continue;
          if (scriptOpts.has(short)) scriptGiven = true;
          if (firstIsFileOpts.has(short)) firstIsFile = true;
          const rest = v.slice(k + 1);
          if (rest) into?.push(valuePart(w, rest));
          else if (argv[i + 1] !== undefined) {
            into?.push(argv[i + 1] as ShellWord);
            i++;
          }
          break;
        }
      }
      continue;
    }
    if (spec?.dd && w.literal) {
      if (v.startsWith('if=')) reads.push(syntheticWord(v.slice(3), true));
      else if (v.startsWith('of=')) writes.push(syntheticWord(v.slice(3), true));
      continue;
    }
    operands.push(w);
  }
  if (spec?.script && !scriptGiven) operands.shift();
  // Recursive searchers with no path search the working directory.
  const recursive =
    RECURSIVE_BY_DEFAULT.has(program) ||
    argv.some((w) => /^-[a-zA-Z]*[rR]/.test(w.value) || w.value === '--recursive');
  if (operands.length === 0 && recursive && spec?.script) operands.push(syntheticWord('.', true));
  const mode = spec?.operands ?? 'read';
  if (mode === 'read') reads.push(...operands);
  else if (mode === 'write') writes.push(...operands);
  else if (mode === 'lastWrite') {
    // With one operand there is no destination (`xxd file`): it is read.
    const last = operands.length > 1 ? operands.pop() : undefined;
    reads.push(...operands);
    if (last) writes.push(last);
  } else if (mode === 'skipFirstWrite') writes.push(...operands.slice(firstIsFile ? 0 : 1));
  else if (mode === 'firstWrite') {
    writes.push(...operands.slice(0, 1));
    reads.push(...operands.slice(1));
  }
  if (inPlace) writes.push(...operands);
  // mv also reads what it moves.
  if (program === 'mv') reads.push(...operands.slice(0, -1));
  return {
    reads,
    writes,
    known: spec !== undefined,
    recursive:
      spec !== undefined &&
      (recursive ||
        program === 'tar' ||
        program === 'zip' ||
        program === 'rsync' ||
        program === 'scp'),
  };
}

/**
 * A command in the old style (`tar cvfz out.tgz files`) as options: each letter of the first word
 * becomes an option, and the letters in `valueLetters` take the next words as their values, in
 * the order of the letters (f takes out.tgz here, not the z after it, as `-cvfz` would say). A
 * command whose first word is not bare letters is returned as it is.
 */
export function expandOldStyle(argv: readonly ShellWord[], valueLetters: string): ShellWord[] {
  const first = argv[1];
  if (!first?.literal || !/^[a-zA-Z]+$/.test(first.value)) return [...argv];
  const rest = argv.slice(2);
  const expanded: ShellWord[] = argv.slice(0, 1);
  for (const letter of first.value) {
    expanded.push(syntheticWord(`-${letter}`, true));
    const value = valueLetters.includes(letter) ? rest.shift() : undefined;
    if (value) expanded.push(value);
  }
  return [...expanded, ...rest];
}
