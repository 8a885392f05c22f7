import { type ShellWord, syntheticWord } from '../words';
import {
  flags,
  type OptionKind,
  type OptionTable,
  opts,
  type ProgramEffects,
  values,
} from './model';

/** A git subcommand's options, and what its operands do once the options are read. */
export interface SubcommandModel {
  readonly table: OptionTable;
  readonly judge: (operands: ShellWord[], argv: readonly ShellWord[], fx: ProgramEffects) => void;
}

/** Words an option took as its value: `git tag --format -l v1` creates v1 (`-l` is the format). */
const optionValues = new WeakSet<ShellWord>();
/** An option's value that changes nothing, kept so that it is not taken for an option itself. */
export const valueOnly: OptionKind = (value) => {
  optionValues.add(value);
};
/** Whether a word matching `pattern` is given as an option (not as another option's value). */
export const given = (argv: readonly ShellWord[], pattern: RegExp): boolean =>
  argv.some((w) => w.literal && !optionValues.has(w) && pattern.test(w.value));

/**
 * What an object name shows: `REV:path`, `:path` and `:N:path` a file (at a revision or in the
 * index), anything else any blob or tree ever committed (like history without a pathspec).
 */
const objectRead = (w: ShellWord, fx: ProgramEffects): void => {
  if (w.value.includes(':'))
    fx.reads.push(syntheticWord(w.value.replace(/^(:[0-3]:|:|[^:]*:)/, '') || '.', w.literal));
  else fx.history = true;
};

const changes = (fx: ProgramEffects): void => {
  fx.readOnly = false;
};

/**
 * The listing subcommands an agent uses to look around (`git tag`, `git remote -v`, `git config
 * --get`, `git stash list`, `git describe`, `git cat-file`): read-only when they only list, a
 * change otherwise. `git config` that sets a value writes the configuration file (where a key like
 * `core.fsmonitor` makes every later git command run a program), so an `Edit` deny on `.git/**`
 * meets it.
 */
export const MORE_SUBCOMMANDS: Readonly<Record<string, SubcommandModel>> = {
  'cat-file': {
    table: {
      long: flags(
        '--textconv --filters --batch --batch-check --batch-command --batch-all-objects --buffer --follow-symlinks --unordered --allow-unknown-type -Z',
      ),
      short: flags('p t s e'),
    },
    judge: (operands, argv, fx) => {
      for (const w of operands) objectRead(w, fx);
      if (given(argv, /^--batch/)) fx.history = true;
    },
  },
  describe: {
    table: {
      long: {
        ...flags('--tags --all --long --always --exact-match --first-parent --contains'),
        ...opts('--abbrev --dirty --broken', 'opt'),
        ...values('--match --exclude --candidates'),
      },
    },
    judge: () => undefined,
  },
  shortlog: {
    table: {
      long: {
        ...flags('--numbered --summary --email --committer --all --no-merges --merges'),
        ...values('--group --format --since --until --author --max-count'),
      },
      short: { ...flags('n s e c'), w: 'opt' },
    },
    judge: () => undefined,
  },
  tag: {
    table: {
      long: {
        ...flags('--list --ignore-case --no-column'),
        ...opts('--sort --contains --no-contains --points-at --format', valueOnly),
        ...opts('--merged --no-merged --column --color', 'opt'),
        ...opts('--annotate --sign --force --delete --verify --edit --no-sign', 'change'),
        ...opts('--message --local-user --cleanup', valueOnly),
        '--file': 'read',
      },
      short: {
        l: 'flag',
        i: 'flag',
        n: 'opt',
        ...opts('a s f d v e', 'change'),
        m: valueOnly,
        F: 'read',
        u: valueOnly,
      },
    },
    judge: (operands, argv, fx) => {
      if (operands.length > 0 && !given(argv, /^(-l|--list)$/)) changes(fx);
      if (given(argv, /^(-m|--message|-F|--file)/)) changes(fx);
    },
  },
  remote: {
    table: { long: flags('--verbose'), short: flags('v') },
    judge: (operands, _argv, fx) => {
      const verb = operands[0]?.value;
      if (verb === 'show' || verb === 'update' || verb === 'prune') {
        // They ask the remote.
        fx.network = true;
        fx.readOnly = false;
      } else if (verb !== undefined && verb !== 'get-url') changes(fx);
    },
  },
  config: {
    table: {
      long: {
        ...flags(
          '--get --get-all --get-regexp --get-urlmatch --list --show-origin --show-scope --name-only --global --local --system --worktree --includes --no-includes --null --bool --int --path',
        ),
        ...values('--type --default --get-color --get-colorbool'),
        // `--blob REV:path` reads the configuration from a file at a revision, and prints it.
        '--blob': objectRead,
        '--file': 'read',
      },
      short: { l: 'flag', z: 'flag', f: 'read' },
    },
    judge: (operands, argv, fx) => {
      // One operand is a key read, except `git config edit` (git 2.46), which opens the file in
      // an editor.
      if (
        given(argv, /^(--get|--list|-l$)/) ||
        (operands.length === 1 &&
          operands[0]?.value !== 'edit' &&
          !given(argv, /^--(unset|replace|add|rename|remove)/))
      )
        return;
      // Setting a value writes the configuration file.
      const file = given(argv, /^--global$/) ? '~/.gitconfig' : '.git/config';
      fx.sideWrites.push({ op: 'git config', target: syntheticWord(file, true) });
      fx.readOnly = false;
    },
  },
  stash: {
    table: { long: flags('--patch --stat --name-only --include-untracked'), short: flags('p u') },
    judge: (operands, argv, fx) => {
      const verb = operands[0]?.value ?? 'push';
      if (verb === 'list' || verb === 'show') {
        // A stash is a commit: its patch may hold anything. `git stash list` takes log's options
        // (`list -p` prints every stash's patch); `-p` may come among other letters (`show -up`).
        if (given(argv, /^(-[a-zA-Z]*p[a-zA-Z]*|--patch)$/)) fx.history = true;
        return;
      }
      changes(fx);
    },
  },
  // Where the repository is, what a name resolves to: nothing changes, no file is shown.
  'rev-parse': {
    table: {
      long: {
        ...flags(
          '--show-toplevel --abbrev-ref --verify --git-dir --is-inside-work-tree --is-inside-git-dir --is-bare-repository --is-shallow-repository --show-prefix --show-cdup --symbolic --symbolic-full-name --quiet --absolute-git-dir --git-common-dir --show-superproject-working-tree --all --sq --sq-quote --local-env-vars --revs-only --no-revs --flags --no-flags --shared-index-path --show-object-format --show-ref-format --not --keep-dashdash --stop-at-non-option',
        ),
        ...values(
          '--default --prefix --resolve-git-dir --git-path --since --after --until --before --exclude --path-format',
        ),
        ...opts('--short --branches --tags --remotes --glob --disambiguate --abbrev-ref', 'opt'),
      },
      short: { q: 'flag' },
    },
    judge: () => undefined,
  },
  // File names, never their content; `--exclude-from` reads a file of patterns.
  'ls-files': {
    table: {
      long: {
        ...flags(
          '--cached --deleted --modified --others --ignored --stage --unmerged --killed --directory --no-empty-directory --exclude-standard --error-unmatch --full-name --recurse-submodules --eol --deduplicate --sparse --resolve-undo --debug',
        ),
        ...values('--exclude --exclude-per-directory --format --with-tree'),
        '--abbrev': 'opt',
        '--exclude-from': 'read',
      },
      short: {
        ...flags('c d m o i s u k z t v f'),
        x: 'value',
        X: 'read',
      },
    },
    judge: () => undefined,
  },
};
