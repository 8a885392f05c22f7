import type { ShellWord } from '../words';
import {
  effectsOf,
  flags,
  type Model,
  notUnderstood,
  type OptionTable,
  readOptions,
} from './model';
import { judgeJqFilter } from './scripts';

/** Built once: a model runs for every decision. */
const JQ_OPTIONS: OptionTable = {
  long: {
    ...flags(
      '--null-input --raw-input --slurp --compact-output --raw-output --raw-output0 --join-output --ascii-output --sort-keys --color-output --monochrome-output --tab --exit-status --seq --stream --stream-errors --unbuffered --args --jsonargs',
    ),
    '--indent': 'value',
    '--from-file': 'read',
    '--library-path': 'value',
  },
  short: {
    ...flags('n R s c r j a S C M e'),
    f: 'read',
    L: 'value',
  },
};

/** Whether jq's option `v`, read by JQ_OPTIONS, takes the next word as its value (`-L`, `-nf`). */
const jqTakesNext = (v: string): boolean =>
  /^--(indent|library-path|from-file)$/.test(v) || /^-[nRscrjaSCMe]*[fL]$/.test(v);

/** jq: the filter judged (modules read files), `--rawfile` / `--slurpfile` / `-f` read. */
export const jq: Model = (argv) => {
  const fx = effectsOf('jq');
  const rest: ShellWord[] = [argv[0] as ShellWord];
  // jq reads its words in one pass: an option's value is no option (`jq -L --args . .env` reads
  // .env), and after `--` every word is positional (`jq . -- --arg a .env` reads a, .env).
  let done = false;
  // Where --args / --jsonargs stand in `rest`: the positional words after it are values.
  let argsAt = -1;
  for (let i = 1; i < argv.length; i++) {
    const w = argv[i] as ShellWord;
    const option = w.literal && !done ? w.value : '';
    // Two values: a name and a value or file.
    if (option === '--arg' || option === '--argjson') i += 2;
    else if (option === '--slurpfile' || option === '--rawfile') {
      const file = argv[i + 2];
      if (file) fx.reads.push(file);
      i += 2;
    } else {
      if (option === '--') done = true;
      if ((option === '--args' || option === '--jsonargs') && argsAt < 0) argsAt = rest.length;
      rest.push(w);
      const value = argv[i + 1];
      if (jqTakesNext(option) && value) {
        rest.push(value);
        i++;
      }
    }
  }
  const given = new Set<string>();
  const operands = readOptions(rest, 1, JQ_OPTIONS, fx, given);
  // `-f FILE`: the filter is that file, which the model cannot see.
  const fromFile = given.has('-f') || given.has('--from-file');
  if (fromFile) notUnderstood(fx, 'jq -f runs a filter from a file the model cannot see');
  const filter = fromFile ? undefined : operands[0];
  if (filter) judgeJqFilter(filter, fx);
  // After --args / --jsonargs the positional words are values, not files; the ones before are
  // still files read (`jq -R . .env --args x` prints .env).
  fx.reads.push(
    ...(fromFile ? operands : operands.slice(1)).filter(
      (w) => argsAt < 0 || rest.indexOf(w) < argsAt,
    ),
  );
  return fx;
};
