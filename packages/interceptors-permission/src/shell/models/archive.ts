import { TAR_VALUE_LETTERS } from '../file-programs';
import { expandOldStyle } from '../operands';
import { type ShellWord, syntheticWord } from '../words';
import {
  effectsOf,
  flags,
  type Model,
  notUnderstood,
  type OptionKind,
  type OptionTable,
  opts,
  type ProgramEffects,
  readOptions,
  values,
} from './model';

/** tar's options; `archive` judges `-f` (written when creating, read otherwise). */
const tarTable = (archive: OptionKind): OptionTable => ({
  long: {
    ...flags(
      '--create --extract --get --list --append --update --gzip --bzip2 --xz --zstd --lzma --auto-compress --verbose --keep-old-files --skip-old-files --no-same-owner --no-same-permissions --same-permissions --preserve-permissions --numeric-owner --dereference --no-recursion --recursion --totals --overwrite --strip-components --wildcards --anchored --exclude-vcs --exclude-vcs-ignores --sort --full-time',
    ),
    ...values(
      '--exclude --transform --owner --group --mode --mtime --format --strip-components --sort',
    ),
    '--file': archive,
    '--directory': 'value',
    '--files-from': 'read',
    '--exclude-from': 'read',
    ...opts(
      '--to-command --use-compress-program --checkpoint-action --info-script --new-volume-script --rsh-command --rmt-command',
      'run',
    ),
  },
  short: {
    ...flags('c x t r u z j J a v k p h P O m S W'),
    f: archive,
    C: 'value',
    T: 'read',
    X: 'read',
    I: 'run',
    F: 'run',
  },
});
/**
 * `-f HOST:FILE` (a colon before any slash) is an archive on another machine: tar runs `rsh HOST
 * /usr/sbin/rmt` to reach it.
 */
const remote = (v: ShellWord, f: ProgramEffects, option: string): boolean => {
  if (!/^[^/]*:/.test(v.value)) return false;
  notUnderstood(f, `tar ${option} ${v.text} is an archive on another machine, reached through rsh`);
  return true;
};

/** Built once: a model runs for every decision, and building a table per call was most of its cost. */
const TAR_CREATING = tarTable((v, f, option) => {
  if (!remote(v, f, option)) f.writes.push(v);
});
const TAR_READING = tarTable((v, f, option) => {
  if (!remote(v, f, option)) f.reads.push(v);
});

/** A tar table whose `-C` / `--directory` hands each directory to `into` (built only when given). */
const withDirectory = (table: OptionTable, into: OptionKind): OptionTable => ({
  long: { ...table.long, '--directory': into },
  short: { ...table.short, C: into },
});

/**
 * Where tar finds `operand` after the directories `-C` changed to (each relative one from the one
 * before it): the operand as written (before the first `-C`) and under each directory.
 */
const underDirectories = (operand: ShellWord, dirs: readonly ShellWord[]): ShellWord[] => {
  const out = [operand];
  if (!operand.literal || /^[/~]/.test(operand.value)) return out;
  let at = '.';
  let known = true;
  for (const dir of dirs) {
    known &&= dir.literal;
    at = /^[/~]/.test(dir.value) ? dir.value : `${at}/${dir.value}`;
    out.push(syntheticWord(`${at}/${operand.value}`, known));
  }
  return out;
};

export const tar: Model = (argv) => {
  const fx = effectsOf('tar');
  // The old style (`tar cvfz out.tgz files`), read as the operand table reads it.
  const words = expandOldStyle(argv, TAR_VALUE_LETTERS);
  // The mode comes from the options as tar reads them: in `tar --exclude -t -cf out.tar .env` the
  // `-t` is a pattern and tar creates. A first reading only finds what was given.
  const given = new Set<string>();
  readOptions(words, 1, TAR_READING, effectsOf('tar'), given);
  const has = (...names: string[]): boolean => names.some((name) => given.has(name));
  const create = has('-c', '-r', '-u', '--create', '--append', '--update');
  const extract = has('-x', '--extract', '--get');
  const table = create ? TAR_CREATING : TAR_READING;
  // `-C DIR` changes directory before the operands after it are read.
  const dirs: ShellWord[] = [];
  const operands = readOptions(
    words,
    1,
    create && has('-C', '--directory')
      ? withDirectory(table, (v) => {
          dirs.push(v);
        })
      : table,
    fx,
  );
  fx.recursive = true;
  // `-h` / `--dereference`: the archive holds what each link leads to, not the link.
  fx.followsLinks = has('-h', '--dereference');
  if (create) {
    for (const operand of operands) fx.reads.push(...underDirectories(operand, dirs));
    fx.readOnly = false;
    // `-T FILE`: the names archived are read from FILE.
    if (has('-T', '--files-from'))
      notUnderstood(
        fx,
        'tar -T archives the files a list names, which are not known before it runs',
      );
  } else if (extract)
    notUnderstood(
      fx,
      'tar extracts the file names the archive holds, which are not known before it runs',
    );
  return fx;
};
