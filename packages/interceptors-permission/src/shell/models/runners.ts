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

/** node / python / … : code given on the command line is not modelled. */
export const interpreter =
  (inline: RegExp): Model =>
  (argv) => {
    const fx = effectsOf(argv[0]?.value ?? '');
    fx.readOnly = false;
    fx.partial = true;
    for (const w of argv.slice(1)) {
      // The first word that is not an option too: `deno eval CODE`.
      if (w.literal && inline.test(w.value))
        notUnderstood(fx, `${w.value} runs code given on the command line`);
      if (!w.literal || !w.value.startsWith('-')) break;
    }
    if (argv[1]?.value === '-')
      notUnderstood(fx, `${argv[0]?.value} - runs code from its standard input`);
    if (onlyAsksVersion(argv)) fx.readOnly = true;
    return fx;
  };

/** `node --version`, `npm -v`, `python3 --help`: prints and exits. */
const onlyAsksVersion = (argv: readonly ShellWord[]): boolean =>
  argv.length === 2 && /^(--version|-v|-V|--help|-h)$/.test(argv[1]?.value ?? '');

const PACKAGE_OPTIONS: OptionTable = {
  long: {
    ...flags(
      '--silent --if-present --workspaces --include-workspace-root --no-color --color --json --parseable --long --ignore-scripts --frozen-lockfile --prefer-offline --offline --no-audit --no-fund --recursive --parallel --stream --no-bail --bail --verbose --quiet --production --dev --save-dev --save-exact --global --version --help --reporter-silent --aggregate-output --sequential --immutable --no-frozen-lockfile --prefer-frozen-lockfile --fail-if-no-match',
    ),
    ...values(
      '--workspace --filter --loglevel --reporter --dir --package --tag --access --otp --cwd --depth --omit --include',
    ),
    '--node-options': 'run',
    '--script-shell': 'run',
    '--call': 'run',
    '--userconfig': 'run',
    '--globalconfig': 'run',
    '--prefix': 'run',
    '--registry': 'run',
    '--shell': 'run',
  },
  short: {
    ...flags('s r g D E y q v h'),
    w: 'value',
    C: 'value',
    F: 'value',
    c: 'run',
    p: 'value',
  },
};

/** npm / pnpm / yarn / npx: their options before the script's own arguments (`--` and after pass through). */
export const packageManager: Model = (argv) => {
  const fx = effectsOf(argv[0]?.value ?? 'npm');
  fx.readOnly = false;
  fx.partial = true;
  const dashdash = argv.findIndex((w) => w.literal && w.value === '--');
  const own = dashdash < 0 ? argv : argv.slice(0, dashdash);
  // After npx / npm exec / pnpm dlx the package's own options follow its name.
  const execAt = own.findIndex(
    (w, i) =>
      i > 0 &&
      w.literal &&
      !w.value.startsWith('-') &&
      (argv[0]?.value === 'npx' || ['exec', 'x', 'dlx'].includes(own[i - 1]?.value ?? '')),
  );
  readOptions(execAt < 0 ? own : own.slice(0, execAt + 1), 1, PACKAGE_OPTIONS, fx);
  if (onlyAsksVersion(argv)) fx.readOnly = true;
  return fx;
};

export const tee: Model = (argv) => {
  const fx = effectsOf('tee');
  const operands = readOptions(
    argv,
    1,
    {
      long: { ...flags('--append --ignore-interrupts'), '--output-error': 'opt' },
      short: flags('a i p'),
    },
    fx,
  );
  fx.writes.push(...operands);
  fx.readOnly = operands.length === 0;
  return fx;
};

export const dd: Model = (argv) => {
  const fx = effectsOf('dd');
  for (const w of argv.slice(1)) {
    const eq = w.value.indexOf('=');
    const key = eq < 0 ? w.value : w.value.slice(0, eq);
    const value = syntheticWord(w.value.slice(eq + 1), w.literal);
    if (!w.literal) notUnderstood(fx, `${w.text} is not known before it runs`);
    else if (key === 'if') fx.reads.push(value);
    else if (key === 'of') {
      fx.writes.push(value);
      fx.readOnly = false;
    } else if (
      ![
        'bs',
        'ibs',
        'obs',
        'cbs',
        'count',
        'skip',
        'seek',
        'iseek',
        'oseek',
        'conv',
        'status',
        'iflag',
        'oflag',
      ].includes(key) &&
      w.value !== '--help'
    )
      notUnderstood(fx, `dd operand ${w.value} is not one the model knows`);
  }
  return fx;
};

/** The options of cp / mv / ln / install (built once: a model runs for every decision). */
const COPIER_OPTIONS: OptionTable = {
  long: {
    ...flags(
      '--recursive --archive --force --interactive --no-clobber --verbose --link --symbolic --update --dereference --no-dereference --no-target-directory --parents --relative --physical --logical --one-file-system --strip-trailing-slashes --remove-destination --attributes-only --debug --exchange --no-copy',
    ),
    ...opts('--backup --preserve --no-preserve --reflink --sparse --update', 'opt'),
    '--suffix': 'value',
    '--target-directory': (v, f) => f.writes.push(v),
    '--mode': 'value',
    '--owner': 'value',
    '--group': 'value',
  },
  short: {
    ...flags('r R a f i n v p l s u b L P H T x d F Z D c'),
    S: 'value',
    t: (v, f) => f.writes.push(v),
    m: 'value',
    o: 'value',
    g: 'value',
  },
};

/** cp / mv / ln / install: the last operand (or `-t DIR`) is written; mv also takes its sources away. */
export const copier =
  (program: string): Model =>
  (argv) => {
    const fx = effectsOf(program);
    fx.readOnly = false;
    const given = new Set<string>();
    const operands = readOptions(argv, 1, COPIER_OPTIONS, fx, given);
    // mv moves a directory with everything in it, whatever its options; a link to a directory
    // opens everything in it.
    fx.recursive =
      program === 'mv' ||
      program === 'ln' ||
      argv.some(
        (w) =>
          w.literal &&
          (/^-[a-zA-Z]*[rRa]/.test(w.value) ||
            w.value === '--recursive' ||
            w.value === '--archive'),
      );
    // `-L` / `--dereference`: the links inside a tree copied are followed, their targets copied.
    fx.followsLinks =
      program === 'cp' &&
      argv.some((w) => w.literal && (/^-[a-zA-Z]*L/.test(w.value) || w.value === '--dereference'));
    const targetGiven = fx.writes.length > 0;
    const sources = targetGiven || operands.length < 2 ? operands : operands.slice(0, -1);
    if (!targetGiven && operands.length >= 2)
      fx.writes.push(operands[operands.length - 1] as ShellWord);
    // mv takes its sources away (a write) and makes their content readable elsewhere (a read).
    if (program !== 'ln') fx.reads.push(...sources);
    if (program === 'mv') fx.writes.push(...sources);
    // A link, hard or symbolic, gives its name the source's content to read and to write
    // (`ln -s .env x && cat x`): each source is judged as both, where the kernel finds it.
    if (program === 'ln') {
      // `ln TARGET` alone links TARGET's last name in the working directory (`cd src && ln -s
      // ../x` makes src/x): that name is written.
      const only = operands[0];
      if (!targetGiven && operands.length === 1 && only) {
        const path = only.value.replace(/\/+$/, '');
        const name = path.slice(path.lastIndexOf('/') + 1);
        fx.writes.push(syntheticWord(name === '' || name === '..' ? '.' : name, only.literal));
      }
      const dest = targetGiven ? fx.writes[0] : operands.length >= 2 ? operands.at(-1) : undefined;
      const symbolic = given.has('-s') || given.has('--symbolic');
      for (const source of symbolic ? linkTargets(sources, dest, fx) : sources) {
        fx.reads.push(source);
        fx.writes.push(source);
      }
    }
    return fx;
  };

/**
 * Where the sources of `ln -s` lead. A symbolic link's relative target is taken from the link's
 * directory, not the working directory (`ln -s ../.env docs/x` leads to `.env`): with a
 * destination that may be a directory (`ln -s ../.env docs`), both readings are kept. (Whether
 * the link is symbolic comes from the options as read: `-Ss` is a backup suffix `s`, a hard link
 * whose source is taken from the working directory.)
 */
const linkTargets = (
  sources: readonly ShellWord[],
  dest: ShellWord | undefined,
  fx: ProgramEffects,
): ShellWord[] => {
  if (dest === undefined) return [...sources];
  const out: ShellWord[] = [];
  for (const source of sources) {
    if (!source.literal || /^[/~]/.test(source.value)) out.push(source);
    else if (!dest.literal) {
      out.push(source);
      notUnderstood(
        fx,
        `the link ${dest.text} is not known before it runs, so where ${source.text} leads is not either`,
      );
    } else {
      const slash = dest.value.lastIndexOf('/');
      const parent = slash < 0 ? '.' : dest.value.slice(0, slash) || '/';
      out.push(
        syntheticWord(`${parent}/${source.value}`, true),
        syntheticWord(`${dest.value}/${source.value}`, true),
      );
    }
  }
  return out;
};

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
/** Built once: a model runs for every decision, and building a table per call was most of its cost. */
const TAR_CREATING = tarTable((v, f) => {
  f.writes.push(v);
});
const TAR_READING = tarTable((v, f) => {
  f.reads.push(v);
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

/** `-o FILE` of a downloader: `-` is standard output. */
const download: OptionKind = (v, f, option) => {
  if (v.literal && v.value === '-') return;
  // curl writes in place of `#1`, `#2`, … the text a URL glob matched (`-o 'sr#1/a.ts'` with
  // `http://x/{c}` writes src/a.ts): such a name is not known before it runs.
  const target = f.program === 'curl' && /#\d/.test(v.value) ? syntheticWord(v.text) : v;
  f.sideWrites.push({ op: `${f.program} ${option}`, target });
};

/**
 * A download saved under the URL's last path segment: a write of that name (unknown if not
 * literal, or if the name is not the URL's: `known` false).
 */
const writeNamed = (fx: ProgramEffects, op: string, url: ShellWord, known = true): void => {
  const path = url.value.replace(/[?#].*$/, '').replace(/^[a-z]+:\/\/[^/]*/i, '');
  const name = path.slice(path.lastIndexOf('/') + 1);
  fx.sideWrites.push({
    op,
    target:
      known && url.literal && name !== '' && name !== '..'
        ? syntheticWord(name, true)
        : syntheticWord(url.text),
  });
};

/** A value curl sends, which names a file read in some spellings (`@FILE`). */
const curlData: OptionKind = (v, f, option) => {
  const at = v.value.indexOf('@');
  // A form field read from a file (`-F 'name=<FILE'`), a value url-encoded from one
  // (`--data-urlencode name@FILE`), and a cookie option's value without `=` (a cookie file)
  // are files read too.
  const form = option === '-F' || option === '--form';
  const from = form
    ? /^[^=]*=</.exec(v.value)
    : option === '--data-urlencode'
      ? /^[^=@]*@/.exec(v.value)
      : null;
  if (at >= 0 && (at === 0 || v.value[at - 1] === '='))
    f.reads.push(syntheticWord(v.value.slice(at + 1), v.literal));
  else if (from) f.reads.push(syntheticWord(v.value.slice(from[0].length), v.literal));
  else if ((option === '-b' || option === '--cookie') && !v.value.includes('=')) f.reads.push(v);
  else if (!v.literal) f.reads.push(v);
};

/** `-K FILE`: more options read from FILE (`output = src/a.ts` writes), not known before it runs. */
const curlConfig: OptionKind = (v, f) => {
  f.reads.push(v);
  notUnderstood(f, `curl -K reads more options from ${v.text}, which are not known before it runs`);
};

const CURL_OPTIONS: OptionTable = {
  long: {
    ...flags(
      '--silent --show-error --fail --location --include --head --verbose --insecure --compressed --remote-name --remote-name-all --get --http1.1 --http2 --globoff --no-progress-meter --fail-with-body --create-dirs --remote-header-name',
    ),
    ...values(
      '--request --header --user-agent --max-time --connect-timeout --retry --user --referer --write-out --url --proxy --resolve --range --max-redirs',
    ),
    '--output': download,
    '--dump-header': 'write',
    '--cookie-jar': 'write',
    '--trace': 'write',
    '--trace-ascii': 'write',
    '--stderr': 'write',
    '--output-dir': 'write',
    '--upload-file': 'read',
    '--config': curlConfig,
    '--netrc-file': 'read',
    '--cert': 'read',
    '--key': 'read',
    '--cookie': curlData,
    '--data': curlData,
    '--data-binary': curlData,
    '--data-raw': 'value',
    '--data-urlencode': curlData,
    '--form': curlData,
    '--json': curlData,
  },
  short: {
    ...flags('s S f L i I v k O G g J #'),
    ...values('X H A m u e w x r'),
    o: download,
    D: 'write',
    c: 'write',
    T: 'read',
    K: curlConfig,
    E: 'read',
    b: curlData,
    d: curlData,
    F: curlData,
  },
};

export const curl: Model = (argv) => {
  const fx = effectsOf('curl');
  fx.network = true;
  fx.readOnly = false;
  const given = new Set<string>();
  const urls = readOptions(argv, 1, CURL_OPTIONS, fx, given);
  const has = (...names: string[]): boolean => names.some((name) => given.has(name));
  // -O / --remote-name writes the URL's last path segment in the working directory; with -J the
  // name the server sends, and for a URL glob (`http://x/{Makefile}`) each name it expands to.
  if (has('-O', '--remote-name', '--remote-name-all')) {
    const serverNamed = has('-J', '--remote-header-name');
    const globOff = has('-g', '--globoff');
    for (const url of urls)
      writeNamed(fx, 'curl -O', url, !serverNamed && (globOff || !/[[{]/.test(url.value)));
  }
  return fx;
};

const WGET_OPTIONS: OptionTable = {
  long: {
    ...flags(
      '--quiet --verbose --no-verbose --continue --timestamping --no-check-certificate --server-response --spider --no-clobber --recursive --no-parent --mirror --page-requisites --convert-links',
    ),
    ...values('--tries --timeout --user-agent --header --user --password --level --wait'),
    '--output-document': download,
    '--output-file': 'write',
    '--append-output': 'write',
    '--directory-prefix': 'write',
    '--input-file': 'read',
    '--post-file': 'read',
    '--body-file': 'read',
    '--load-cookies': 'read',
    '--save-cookies': 'write',
    '--post-data': 'value',
    '--execute': 'run',
  },
  short: {
    ...flags('q v c N S r m p k b x E K H L np'),
    ...values('t T U l w A R D'),
    O: download,
    o: 'write',
    a: 'write',
    P: 'write',
    i: 'read',
    e: 'run',
  },
};

export const wget: Model = (argv) => {
  const fx = effectsOf('wget');
  fx.network = true;
  fx.readOnly = false;
  const given = new Set<string>();
  const urls = readOptions(argv, 1, WGET_OPTIONS, fx, given);
  const has = (...names: string[]): boolean => names.some((name) => given.has(name));
  // -r / -m / -p save the pages a site links to, named by the site.
  if (has('-r', '--recursive', '-m', '--mirror', '-p', '--page-requisites'))
    notUnderstood(
      fx,
      'wget -r saves the files a site links to, whose names are not known before it runs',
    );
  // Without -O (or --spider), wget saves each URL under its last path segment: with -x under
  // directories named by the URL's host and path, with -i those of the URLs a file names.
  if (!has('-O', '--output-document', '--spider')) {
    if (has('-x'))
      notUnderstood(fx, 'wget -x saves each URL under directories named by its host and path');
    if (has('-i', '--input-file'))
      notUnderstood(
        fx,
        'wget -i saves the URLs a file names, whose names are not known before it runs',
      );
    for (const url of urls) writeNamed(fx, 'wget', url);
  }
  return fx;
};
