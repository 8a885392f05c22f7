import { type ShellWord, syntheticWord } from '../words';
import { given, MORE_SUBCOMMANDS, type SubcommandModel, valueOnly } from './git-more';
import {
  effectsOf,
  flags,
  notUnderstood,
  type OptionKind,
  type OptionTable,
  opts,
  type ProgramEffects,
  readOptions,
  values,
} from './model';

/** `-c key=value`: only keys that change how output looks; any other may run a program. */
const SAFE_CONFIG =
  /^(color\.[a-z.]+|core\.quotepath|diff\.(noprefix|mnemonicprefix|renames)|log\.(date|decorate|showroot|abbrevcommit)|column\.ui|pager\.[a-z-]+|advice\.[a-z]+|i18n\.logoutputencoding)$/i;

/** Plumbing that does what a porcelain subcommand does: deny and ask rules see the porcelain. */
const PLUMBING: Readonly<Record<string, string>> = {
  'send-pack': 'push',
  'http-push': 'push',
  'receive-pack': 'push',
  'commit-tree': 'commit',
  'update-ref': 'update-ref',
};

const config: OptionKind = (value, fx) => {
  const key = value.value.split('=')[0] ?? '';
  // `-c alias.p=push p` runs push: the alias is what deny and ask rules must see.
  if (key.toLowerCase().startsWith('alias.') && value.literal) {
    fx.aliases ??= {};
    fx.aliases[key.slice(6)] = value.value.slice(key.length + 1);
  }
  if (!value.literal || !SAFE_CONFIG.test(key) || key.toLowerCase().startsWith('pager.'))
    notUnderstood(fx, `git -c ${value.text} sets configuration that may run a program`);
};

/** `-C DIR`: another repository's configuration may run programs; only `.` is this one. */
const workTree: OptionKind = (value, fx) => {
  if (!(value.literal && (value.value === '.' || value.value === './')))
    notUnderstood(
      fx,
      `git -C ${value.text} runs git in another directory, whose configuration may run programs`,
    );
};

const GLOBAL: OptionTable = {
  long: {
    ...flags(
      '--no-pager --paginate --bare --no-replace-objects --literal-pathspecs --glob-pathspecs --noglob-pathspecs --icase-pathspecs --no-optional-locks --no-advice --version --help --html-path --man-path --info-path',
    ),
    // With a value it runs git's programs from there; alone it prints where they are.
    '--exec-path': (_v, fx) => notUnderstood(fx, 'git --exec-path=… runs programs from there'),
    '--git-dir': 'run',
    '--work-tree': 'run',
    '--namespace': 'value',
    '--config-env': 'run',
    '--super-prefix': 'run',
    '--list-cmds': 'value',
  },
  short: { p: 'flag', P: 'flag', h: 'flag', v: 'flag', C: workTree, c: config },
};
const GLOBAL_VALUES = new Set([
  '-C',
  '-c',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--config-env',
  '--super-prefix',
]);

const DIFF_LONG: Record<string, OptionKind> = {
  ...flags(
    '--patch --no-patch --raw --patch-with-raw --patch-with-stat --compact-summary --numstat --shortstat --summary --name-only --name-status --no-color --no-renames --text --ignore-all-space --ignore-space-change --ignore-blank-lines --ignore-cr-at-eol --ignore-space-at-eol --function-context --minimal --patience --histogram --indent-heuristic --no-indent-heuristic --full-index --binary --no-abbrev --no-prefix --default-prefix --exit-code --quiet --check --cached --staged --merge-base --ita-invisible-in-index --pickaxe-all --pickaxe-regex --textconv --no-textconv --no-ext-diff --no-color-moved --color-moved-ws --no-color-moved-ws --irreversible-delete --no-relative --find-object --cc --combined-all-paths --remerge-diff --dd --full-diff --oneline --graph --no-decorate --all --first-parent --merges --no-merges --reverse --abbrev-commit --no-abbrev-commit --follow --full-history --simplify-by-decoration --simplify-merges --topo-order --date-order --author-date-order --left-right --cherry-pick --cherry-mark --cherry --boundary --source --walk-reflogs --no-notes --show-notes --no-expand-tabs --mailmap --no-mailmap --use-mailmap --children --parents --root --log-size --clear-decorations --no-min-parents --no-max-parents --single-worktree --invert-grep --all-match --regexp-ignore-case --basic-regexp --extended-regexp --fixed-strings --perl-regexp --stdin --no-walk --do-walk --in-commit-order --show-linear-break --reflog --ignore-missing --bisect --not --no-standard-notes --standard-notes',
  ),
  ...values(
    '--word-diff-regex --diff-algorithm --anchored --src-prefix --dst-prefix --inter-hunk-context --output-indicator-new --output-indicator-old --output-indicator-context --ws-error-highlight --diff-filter --rotate-to --skip-to --line-prefix --max-count --skip --since --until --after --before --author --committer --grep --format --date --encoding --exclude --glob --max-parents --min-parents --since-as-filter --diff-merges --grep-reflog --decorate-refs --decorate-refs-exclude',
  ),
  ...opts(
    '--stat --dirstat --submodule --color --word-diff --color-words --find-renames --find-copies --break-rewrites --abbrev --relative --ignore-submodules --unified --color-moved --decorate --branches --tags --remotes --pretty --notes --expand-tabs --ancestry-path --find-copies-harder --stat-width --stat-name-width --stat-count --stat-graph-width --cumulative',
    'opt',
  ),
  '--output': 'write',
  '--ext-diff': 'run',
  '--show-signature': 'run',
  '--no-index': 'flag',
  '--orderfile': 'read',
};
const DIFF_SHORT: Record<string, OptionKind> = {
  ...flags('p u s R a w b W z D i g m t c E F P q'),
  ...opts('M C B U', 'opt'),
  ...opts('0 1 2 3 4 5 6 7 8 9', 'flag'),
  l: 'value',
  S: 'value',
  G: 'value',
  n: 'value',
  O: 'read',
  // `-L start,end:file` reads the file.
  L: (value, fx) => {
    const colon = value.value.lastIndexOf(':');
    if (colon >= 0) fx.reads.push(syntheticWord(value.value.slice(colon + 1), value.literal));
  },
};
const DIFF: OptionTable = { long: DIFF_LONG, short: DIFF_SHORT };

const GREP: OptionTable = {
  long: {
    ...flags(
      '--cached --no-index --untracked --no-exclude-standard --exclude-standard --recurse-submodules --text --textconv --no-textconv --ignore-case --word-regexp --invert-match --full-name --extended-regexp --basic-regexp --perl-regexp --fixed-strings --line-number --column --files-with-matches --name-only --files-without-match --null --only-matching --count --no-color --break --heading --show-function --function-context --all-match --quiet --and --or --not',
    ),
    ...values('--max-depth --max-count --context --after-context --before-context --threads -e'),
    '--color': 'opt',
    '--open-files-in-pager': 'run',
    '--file': 'read',
  },
  short: {
    ...flags('i I w v h H E G P F n l L z o c p W q a r'),
    ...opts('0 1 2 3 4 5 6 7 8 9', 'flag'),
    ...values('m A B C e'),
    f: 'read',
    O: 'run',
  },
};

const STATUS: OptionTable = {
  long: {
    ...flags(
      '--short --branch --long --show-stash --ahead-behind --no-ahead-behind --renames --no-renames --verbose --null --no-column',
    ),
    ...opts(
      '--porcelain --untracked-files --ignored --ignore-submodules --column --find-renames',
      'opt',
    ),
  },
  short: { ...flags('s b v z'), u: 'opt', M: 'opt' },
};

const BRANCH: OptionTable = {
  long: {
    ...flags(
      '--list --all --remotes --verbose --quiet --show-current --no-color --no-column --ignore-case --omit-empty',
    ),
    ...opts('--contains --no-contains --points-at --sort --format', valueOnly),
    ...Object.fromEntries(
      ['--merged', '--no-merged', '--color', '--column', '--abbrev'].map((n) => [
        n,
        'opt' as const,
      ]),
    ),
    ...opts(
      '--delete --move --copy --force --set-upstream-to --unset-upstream --edit-description --track --no-track --create-reflog --recurse-submodules',
      'change',
    ),
  },
  short: {
    ...flags('a r v q l i'),
    ...opts('d D m M c C f t', 'change'),
    // `-u UPSTREAM` is --set-upstream-to: it writes the branch's upstream to .git/config.
    u: (_v, fx) => {
      fx.readOnly = false;
    },
  },
};

const BLAME: OptionTable = {
  long: {
    ...flags(
      '--porcelain --line-porcelain --incremental --root --show-stats --show-name --show-number --score-debug --show-email --progress --no-progress --color-lines --color-by-age --minimal --reverse --first-parent',
    ),
    ...values('--since --ignore-rev --date --encoding'),
    '--abbrev': 'opt',
    '--contents': 'read',
    '--ignore-revs-file': 'read',
  },
  short: {
    ...flags('b l t s e w p c f n'),
    M: 'opt',
    C: 'opt',
    L: 'value',
    S: 'read',
  },
};

/** Revision-like words (`HEAD~1`, `main`, a hash, `a..b`): not paths. */
const looksLikeRevision = (w: ShellWord): boolean =>
  w.literal && !w.value.includes('/') && !w.value.includes('.')
    ? true
    : /(\.\.|[~^@])/.test(w.value) && !w.value.includes('/');

/**
 * A word no ref can be named (a component starting with `.`, a glob, a trailing `/`): git takes it
 * for a path. Any other word before `--` that names no file is a revision to git, which shows
 * every file in it: `git log -p origin/main`, `git show v1.0`, `git grep TOKEN feature/x`.
 */
const surelyPath = (w: ShellWord): boolean => w.literal && /(^|\/)\.|[*?[\\]|\/$/.test(w.value);

/** `REV:path` and `:path` name a file's content at a revision or in the index: the path is read. */
const revisionPath = (w: ShellWord): ShellWord | undefined => {
  if (!w.value.includes(':')) return undefined;
  const path = w.value.replace(/^(:[0-3]:|:|[^:]*:)/, '');
  return syntheticWord(path === '' ? '.' : path, w.literal);
};

/** What `git diff` / `log` / `show` read: pathspecs, `REV:path`, and for history without a pathspec the whole tree. */
function contentReads(
  sub: string,
  argv: readonly ShellWord[],
  operands: ShellWord[],
  fx: ProgramEffects,
): void {
  const dashdash = argv.findIndex((w) => w.literal && w.value === '--');
  const after = new Set(dashdash < 0 ? [] : argv.slice(dashdash + 1));
  const pathspecs: ShellWord[] = [];
  let revisions = 0;
  // Pathspecs that surely are paths: only they limit what history shows.
  let limits = 0;
  let magic = false;
  let blobs = 0;
  for (const w of operands) {
    // Pathspec magic (`:/top`, `:(icase)X`, `:!X`) matches in ways a path rule cannot follow: as
    // wide as a glob, and `:/X` also names X.
    if (/^:[/(!^]/.test(w.value)) {
      if (w.value.startsWith(':/') && w.value.length > 2)
        fx.reads.push(syntheticWord(w.value.slice(2), w.literal));
      magic = true;
      continue;
    }
    const inRev = revisionPath(w);
    if (inRev && !after.has(w)) {
      // A blob named by path: read, but it limits nothing else the command shows.
      fx.reads.push(inRev);
      blobs++;
    } else if (after.has(w) || !looksLikeRevision(w)) {
      pathspecs.push(w);
      if (after.has(w) || surelyPath(w)) limits++;
      else revisions++;
    } else revisions++;
  }
  const has = (...names: string[]) => argv.some((w) => w.literal && names.includes(w.value));
  const noIndex = has('--no-index');
  // Flags that show file content (a patch, words, a combined diff), in any spelling.
  const showsContent =
    has(
      '-p',
      '-u',
      '--patch',
      '--patch-with-stat',
      '--patch-with-raw',
      '--cc',
      '--dd',
      '--remerge-diff',
      '--full-diff',
      '--word-diff',
      '--color-words',
      '-c',
      '--textconv',
      '-W',
      '--function-context',
      '-m',
      // It implies --patch (`git log --binary` prints every change in full).
      '--binary',
    ) ||
    argv.some(
      (w) =>
        /^-[a-zA-Z0-9]*[puWcm]/.test(w.value) ||
        w.value.startsWith('-L') ||
        /^--(word-diff|color-words|unified|patch)/.test(w.value) ||
        /^-U/.test(w.value),
    );
  // Options that replace the patch. Not `--oneline`: `git show --oneline` still prints it.
  const quiet =
    has(
      '-s',
      '--no-patch',
      '--stat',
      '--shortstat',
      '--numstat',
      '--name-only',
      '--name-status',
      '--summary',
      '--raw',
    ) && !showsContent;
  const content =
    sub === 'log' || sub === 'whatchanged' || sub === 'reflog' ? showsContent : !quiet;
  // A bare object name may be any blob or tree ever committed (`git diff <blob> HEAD:x`).
  const history = sub !== 'diff' || revisions > 0 || noIndex;
  if (blobs > 0 && revisions === 0 && pathspecs.length === 0 && !magic) return;
  fx.reads.push(...pathspecs.filter((p) => !fx.reads.includes(p)));
  if (history || noIndex) fx.recursive = true;
  // History shown without a pathspec (or with a pathspec glob, which git matches across
  // directories) may hold any file ever committed, protected ones too.
  const wide = magic || limits === 0 || pathspecs.some((p) => /[*?[]/.test(p.value));
  if (content && history && !noIndex && wide) fx.history = true;
}

const SUBCOMMANDS: Record<string, OptionTable> = {
  diff: DIFF,
  log: DIFF,
  show: DIFF,
  whatchanged: DIFF,
  reflog: DIFF,
  grep: GREP,
  status: STATUS,
  branch: BRANCH,
  blame: BLAME,
};

/**
 * The words deny and ask rules see: git and its subcommand without global options, an alias
 * defined by `-c alias.x=…` expanded (`!cmd` runs cmd), plumbing named by its porcelain.
 */
function canonicalOf(
  argv: readonly ShellWord[],
  at: number,
  aliases: Readonly<Record<string, string>> | undefined,
): ShellWord[] {
  const git = argv[0] as ShellWord;
  const sub = argv[at];
  const rest = argv.slice(at + 1);
  if (sub === undefined) return [git];
  // Aliases may name aliases (`-c alias.q=push -c alias.p=q p`): followed a few steps, as git does.
  let words: ShellWord[] = [sub, ...rest];
  for (let step = 0; step < 8; step++) {
    const head = words[0] as ShellWord;
    const alias = aliases && Object.hasOwn(aliases, head.value) ? aliases[head.value] : undefined;
    if (alias === undefined) break;
    const expanded = alias
      .replace(/^!/, '')
      .trim()
      .split(/\s+/)
      .map((w) => syntheticWord(w, true));
    if (alias.startsWith('!')) return [...expanded, ...words.slice(1)];
    words = [...expanded, ...words.slice(1)];
    // An alias may start with global options of its own (`-c k=v push`).
    const at = subcommandAt([git, ...words]) - 1;
    if (at >= words.length) return [git, ...words];
    words = words.slice(at);
  }
  const [first, ...tail] = words as [ShellWord, ...ShellWord[]];
  const porcelain = Object.hasOwn(PLUMBING, first.value) ? PLUMBING[first.value] : undefined;
  return [git, porcelain ? syntheticWord(porcelain, true) : first, ...tail];
}

/** Index of the subcommand after git's global options, or `argv.length`. */
const subcommandAt = (argv: readonly ShellWord[]): number => {
  let i = 1;
  while (i < argv.length) {
    const w = argv[i] as ShellWord;
    if (!w.literal || !w.value.startsWith('-')) return i;
    i += GLOBAL_VALUES.has(w.value) ? 2 : 1;
  }
  return i;
};

/** git: global options, then the subcommand's model; subcommands without one keep their prefix meaning. */
export function gitModel(argv: readonly ShellWord[]): ProgramEffects {
  const fx = effectsOf('git');
  const at = subcommandAt(argv);
  readOptions(argv.slice(0, at), 1, GLOBAL, fx);
  fx.canonical = canonicalOf(argv, at, fx.aliases);
  const subWord = argv[at];
  if (subWord === undefined) return fx;
  if (!subWord.literal) {
    notUnderstood(fx, `the git subcommand ${subWord.text} is not known before it runs`);
    return fx;
  }
  const sub = subWord.value;
  if (Object.hasOwn(MORE_SUBCOMMANDS, sub)) {
    const model = MORE_SUBCOMMANDS[sub] as SubcommandModel;
    fx.program = `git ${sub}`;
    model.judge(readOptions(argv, at + 1, model.table, fx), argv.slice(at + 1), fx);
    return fx;
  }
  const table = Object.hasOwn(SUBCOMMANDS, sub) ? SUBCOMMANDS[sub] : undefined;
  if (table === undefined) {
    fx.partial = true;
    fx.readOnly = false;
    return fx;
  }
  fx.program = `git ${sub}`;
  // git grep's pattern may come by option however spelled (`-ie x`, `-e x`, `-f file`).
  let patternByOption = false;
  const pattern =
    (kind: OptionKind): OptionKind =>
    (v, f) => {
      patternByOption = true;
      if (kind === 'read') f.reads.push(v);
    };
  const own =
    sub === 'grep'
      ? {
          ...table,
          long: { ...table.long, '--file': pattern('read'), '-e': pattern('value') },
          short: { ...table.short, e: pattern('value'), f: pattern('read') },
        }
      : table;
  const operands = readOptions(argv, at + 1, own, fx);
  if (sub === 'grep') {
    const given = patternByOption;
    const rest = given ? operands : operands.slice(1);
    const wide = argv.some(
      (w) => w.literal && /^(--no-index|--untracked|--no-exclude-standard)$/.test(w.value),
    );
    const dashdash = argv.findIndex((w) => w.literal && w.value === '--');
    const paths = rest.filter((w) => dashdash >= 0 || !looksLikeRevision(w) || revisionPath(w));
    fx.reads.push(...paths.map((w) => revisionPath(w) ?? w));
    fx.recursive = true;
    // A revision searches every file in it, unless a path surely limits it.
    const limits = paths.filter((w) => dashdash >= 0 || surelyPath(w) || revisionPath(w));
    if ((wide || limits.length < rest.length) && limits.length === 0)
      fx.reads.push(syntheticWord('.', true));
  } else if (table === DIFF) contentReads(sub, argv.slice(at + 1), operands, fx);
  // Every operand may be the file blamed (a revision named like a file is checked harmlessly).
  else if (sub === 'blame') fx.reads.push(...operands);
  // `git branch --format -l topic` creates topic: `-l` there is the format, not the list flag.
  else if (sub === 'branch' && operands.length > 0 && !given(argv.slice(at + 1), /^(-l|--list)$/))
    fx.readOnly = false;
  return fx;
}
