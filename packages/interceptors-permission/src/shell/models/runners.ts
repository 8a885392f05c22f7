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

/**
 * deno / bun, whose subcommands this model does not read: code given on the command line or read
 * from standard input (`-`, in any place: `deno run -A -`) asks; the rest keeps its prefix meaning.
 */
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
    if (argv.some((w) => w.literal && w.value === '-'))
      notUnderstood(fx, `${argv[0]?.value} - runs code from its standard input`);
    if (onlyAsksVersion(argv)) fx.readOnly = true;
    return fx;
  };

/** `node --version`, `npm -v`, `python3 --help`: prints and exits. */
const onlyAsksVersion = (argv: readonly ShellWord[]): boolean =>
  argv.length === 2 && /^(--version|-v|-V|--help|-h)$/.test(argv[1]?.value ?? '');

/**
 * `--prefix DIR` (npm's `-C`), pnpm's `-C` / `--dir`, yarn's `--cwd`: the scripts run are another
 * package's, and its `.npmrc` (which may set `script-shell` or `node-options`) is read.
 */
const elsewhere: OptionKind = (v, fx, option) =>
  notUnderstood(
    fx,
    `option ${option} of ${fx.program} runs another program: the scripts of ${v.text}, with its configuration`,
  );

const PACKAGE_OPTIONS: OptionTable = {
  long: {
    ...flags(
      '--silent --if-present --workspaces --include-workspace-root --no-color --color --json --parseable --long --ignore-scripts --frozen-lockfile --prefer-offline --offline --no-audit --no-fund --recursive --parallel --stream --no-bail --bail --verbose --quiet --production --dev --save-dev --save-exact --global --version --help --reporter-silent --aggregate-output --sequential --immutable --no-frozen-lockfile --prefer-frozen-lockfile --fail-if-no-match',
    ),
    ...values(
      '--workspace --filter --loglevel --reporter --package --tag --access --otp --depth --omit --include',
    ),
    '--dir': elsewhere,
    '--cwd': elsewhere,
    '--prefix': elsewhere,
    '--node-options': 'run',
    '--script-shell': 'run',
    '--call': 'run',
    '--userconfig': 'run',
    '--globalconfig': 'run',
    '--registry': 'run',
    '--shell': 'run',
  },
  short: {
    ...flags('s r g D E y q v h'),
    w: 'value',
    C: elsewhere,
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
  const options = execAt < 0 ? own : own.slice(0, execAt + 1);
  readOptions(options, 1, PACKAGE_OPTIONS, fx);
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
    // `if={x,.env}` is `if=x if=.env` to dd, and `if=.e*` may match a file named `if=.env`.
    else if (w.glob)
      notUnderstood(fx, `dd operand ${w.text} may expand into other operands (a glob or brace)`);
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
    // `install -d DIR…` makes each operand a directory: every one is written, none read.
    if (program === 'install' && given.has('-d')) {
      fx.writes.push(...operands);
      return fx;
    }
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
