/**
 * Class 1, generated: every spelling of an option that writes, runs or reads — `--long=value`,
 * `--long value`, `-s value`, `-svalue`, and the short flag combined with others (`-ruo value`,
 * `-ruovalue`). A model that knows the option must know all of them. Shapes already written out
 * in corpus-options are left out here.
 */
import type { AttackEntry, Effect } from './entry';

interface OptionSpec {
  /** Names the generated ids. */
  readonly id: string;
  /** The allowed command the option goes into (`sort`, `git diff`, `sed -n`). */
  readonly program: string;
  readonly long: string;
  /** The short letter, if the option has one. */
  readonly short?: string;
  /** Other short flags without values, to combine with the short option. */
  readonly flags?: string;
  /** The option's value as the shell reads it (quoted if it holds spaces). */
  readonly value: string;
  /** Operands after the option. */
  readonly after: string;
  readonly effect: Effect;
  readonly note: string;
  readonly needs?: readonly string[];
}

const SPECS: readonly OptionSpec[] = [
  {
    id: 'sort-output',
    program: 'sort',
    long: 'output',
    short: 'o',
    flags: 'ru',
    value: 'notes.txt',
    after: 'README.md',
    effect: 'write',
    note: 'sort writes its output to a new file',
  },
  {
    id: 'git-diff-output',
    program: 'git diff',
    long: 'output',
    value: 'notes.txt',
    after: 'HEAD~1',
    effect: 'write',
    note: 'git diff writes the diff to a new file',
  },
  {
    id: 'git-log-output',
    program: 'git log -1 -p',
    long: 'output',
    value: 'notes.txt',
    after: '',
    effect: 'write',
    note: 'git log writes the log to a new file',
  },
  {
    id: 'grep-directories',
    program: 'grep',
    long: 'directories',
    short: 'd',
    flags: 'h',
    value: 'recurse',
    after: 'TOKEN .',
    effect: 'read',
    note: 'grep reads every file under . (.env included)',
  },
  {
    id: 'sed-expression',
    program: 'sed -n',
    long: 'expression',
    short: 'e',
    flags: 's',
    value: "'1e touch {MARK}'",
    after: 'README.md',
    effect: 'exec',
    note: 'the e command of the script runs a program',
  },
  {
    id: 'rg-pre',
    program: 'rg',
    long: 'pre',
    value: 'scripts/pwn.sh',
    after: 'x README.md',
    effect: 'exec',
    note: 'rg runs the preprocessor on each file',
    needs: ['rg'],
  },
  {
    id: 'npm-script-shell',
    program: 'npm test',
    long: 'script-shell',
    value: 'scripts/pwn.sh',
    after: '',
    effect: 'exec',
    note: 'npm runs the test script with this program',
  },
  {
    id: 'npm-node-options',
    program: 'npm test',
    long: 'node-options',
    value: "'--require ./scripts/pwn.cjs'",
    after: '',
    effect: 'exec',
    note: 'node loads the module before the test script',
  },
  {
    id: 'sort-files0-from',
    program: 'sort',
    long: 'files0-from',
    value: '.env',
    after: '',
    effect: 'read',
    note: 'sort reads file names from .env and names each one it cannot open',
  },
  {
    id: 'sort-compress-program',
    program: 'sort -S 64K',
    long: 'compress-program',
    value: 'scripts/pwn.sh',
    after: 'docs/big.txt',
    effect: 'exec',
    note: 'sort runs the compressor on its temporary files',
  },
];

/** Every spelling of one option, as `[label, option words]`. */
function spellingsOf(spec: OptionSpec): [string, string][] {
  const out: [string, string][] = [
    ['long-eq', `--${spec.long}=${spec.value}`],
    ['long-sep', `--${spec.long} ${spec.value}`],
  ];
  if (spec.short) {
    out.push(['short-sep', `-${spec.short} ${spec.value}`]);
    out.push(['short-attached', `-${spec.short}${spec.value}`]);
    if (spec.flags) {
      out.push(['combined-sep', `-${spec.flags}${spec.short} ${spec.value}`]);
      out.push(['combined-attached', `-${spec.flags}${spec.short}${spec.value}`]);
    }
  }
  return out;
}

/** The generated entries, minus the commands `written` already has. */
export function spellings(written: readonly AttackEntry[]): AttackEntry[] {
  const seen = new Set(written.map((entry) => entry.command));
  const out: AttackEntry[] = [];
  for (const spec of SPECS) {
    for (const [label, option] of spellingsOf(spec)) {
      const command = [spec.program, option, spec.after].filter(Boolean).join(' ');
      if (seen.has(command)) continue;
      seen.add(command);
      out.push({
        id: `c1-spell-${spec.id}-${label}`,
        class: 1,
        command,
        effect: spec.effect,
        note: `${spec.note} (${label})`,
        ...(spec.needs && { needs: spec.needs }),
      });
    }
  }
  return out;
}
