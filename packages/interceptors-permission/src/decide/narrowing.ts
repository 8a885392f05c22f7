import type { NarrowableSandbox, SandboxNarrowing } from '@dsh-tools/protocol';
import { isFamily, type Policy } from './policy';
import { patternsOf } from './policy-index';

/**
 * Programs whose allow rule says the policy means the network to be used. An allow of
 * `Bash(curl:*)` or of `WebFetch` keeps the sandbox's network; with none of them, and with any
 * deny on them, the call's processes get no network whatever the sandbox allows.
 */
const NETWORK_PROGRAMS = new Set([
  'curl',
  'wget',
  'nc',
  'ncat',
  'netcat',
  'ssh',
  'scp',
  'sftp',
  'rsync',
  'telnet',
  'ftp',
  'gh',
  'pip',
  'pip3',
]);
const NETWORK_SUBCOMMANDS: Readonly<Record<string, readonly string[]>> = {
  git: ['clone', 'fetch', 'pull', 'push', 'ls-remote', 'submodule'],
  npm: ['install', 'i', 'ci', 'add', 'update', 'publish', 'view', 'exec', 'x'],
  pnpm: ['install', 'i', 'add', 'update', 'dlx', 'publish'],
  yarn: ['install', 'add', 'upgrade', 'dlx', 'npm'],
  npx: [],
};
const NETWORK_TOOLS = new Set(['WebFetch', 'WebSearch']);

/**
 * A picomatch glob as the sandbox's smaller dialect (`*`, `?`, `**`), never narrower. picomatch
 * matches a path equal to the glob's own text before it reads the glob (`/w/[a]` matches the file
 * named `[a]` as well as `a`): that name is kept, each mark the sandbox cannot say made `?`. Then
 * the glob as picomatch reads it ({@link translated}). Widening is safe here: these are deny
 * globs, and a wider deny only takes away more.
 */
export function toSandboxGlobs(glob: string): string[] {
  const itself = glob.replace(/[[\]{}()|!\\]/g, '?');
  return [...new Set([...translated(glob), wholeStars(itself)])];
}

/** `*` next to `**` in one component is not a whole-component `**`: the component is `**`. */
const wholeStars = (glob: string): string =>
  glob
    .split('/')
    .map((c) => (c.includes('**') ? '**' : c))
    .join('/');

/**
 * The glob as picomatch reads it, in the sandbox's dialect: brace lists expanded (a range or a
 * lone member widened to `*`); a `|` outside a group alternates the whole pattern (`/w/a|b` is
 * `/w/a` or `b`), so each alternative is translated on its own (one that is not absolute matches
 * no absolute path); then {@link widened}.
 */
function translated(glob: string): string[] {
  const brace = /\{([^{}]*)\}/.exec(glob);
  if (brace) {
    const members = brace[1]!.split(',');
    // A range (`{1..3}`, `{a..c}`, `{01..09..2}`, alone or in a list) is the names picomatch
    // counts, which no member spells, and a lone member may be read either way: the group is
    // widened to `*`.
    const options = members.length === 1 || members.some((m) => m.includes('..')) ? ['*'] : members;
    return options.flatMap((o) =>
      translated(glob.slice(0, brace.index) + o + glob.slice(brace.index + brace[0].length)),
    );
  }
  const alternatives = outsideGroups(glob, '|');
  if (alternatives.length > 1) {
    return alternatives.filter((a) => a.startsWith('/')).flatMap(translated);
  }
  return [wholeStars(widened(glob))];
}

/** `glob` cut at each `separator` that is outside a group `(…)` and a bracket `[…]`. */
function outsideGroups(glob: string, separator: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i];
    if (ch === '\\') i++;
    else if (ch === '[') i = bracketEnd(glob, i) ?? i;
    else if (ch === '(') depth++;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    else if (ch === separator && depth === 0) {
      out.push(glob.slice(from, i));
      from = i + 1;
    }
  }
  out.push(glob.slice(from));
  return out;
}

/** Where the bracket expression opening at `at` closes (POSIX classes such as `[:digit:]` inside). */
function bracketEnd(glob: string, at: number): number | undefined {
  const match = /^\[(?:\[:[a-z]+:\]|\\.|[^\]\\])*\]/.exec(glob.slice(at));
  return match ? at + match[0].length - 1 : undefined;
}

/**
 * What the sandbox's dialect cannot say, widened to what it can. An escaped punctuation mark is
 * that mark (`?`), an escaped letter or digit is the regular expression picomatch hands it to
 * (`\\d` a digit, `\\W` anything but a word character, `/` included): its component may span
 * others, so every component it touches is `**`, as for a group or an extglob that holds a `/`;
 * one that does not (`(a|b)`, `@(…)`, `!(…)`) is `*`. A bracket expression is `?` (POSIX classes
 * inside; an unclosed `[` or a lone `]` is itself, one character: `?` too); any brace, group mark
 * or `!` left is `*`.
 */
function widened(glob: string): string {
  let out = '';
  /** Every component from the one `out` ends in to the one `to` is in: `**`; where to go on. */
  const spanning = (to: number): number => {
    out = `${out.slice(0, out.lastIndexOf('/') + 1)}**`;
    const next = glob.indexOf('/', to + 1);
    return next < 0 ? glob.length : next - 1;
  };
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i] as string;
    if (ch === '\\') {
      if (/[\p{L}\p{N}]/u.test(glob[i + 1] ?? '')) i = spanning(i + 1);
      else {
        out += '?';
        i++;
      }
    } else if (ch === '[') {
      out += '?';
      i = bracketEnd(glob, i) ?? i;
    } else if ('@!+*?'.includes(ch) && glob[i + 1] === '(') {
      // An extglob: its mark and its group are one.
    } else if (ch === '(') {
      const end = groupEnd(glob, i);
      if (end === undefined) out += '*';
      else if (glob.slice(i, end + 1).includes('/') || glob.slice(i, end + 1).includes('\\')) {
        i = spanning(end);
      } else {
        out += '*';
        i = end;
      }
    } else if (ch === ']') out += '?';
    else out += '{}()|!'.includes(ch) ? '*' : ch;
  }
  return out;
}

/** Where the group opening at `at` closes, nested groups and brackets inside. */
function groupEnd(glob: string, at: number): number | undefined {
  let depth = 0;
  for (let i = at; i < glob.length; i++) {
    const ch = glob[i];
    if (ch === '\\') i++;
    else if (ch === '[') i = bracketEnd(glob, i) ?? i;
    else if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) return i;
  }
  return undefined;
}

const narrowings = new WeakMap<Policy, SandboxNarrowing>();

/**
 * What this policy's rules take away from the sandbox of every call it lets through: its Read
 * deny rules become `denyRead`, its Edit/Write deny rules `denyWrite`, and the network goes unless
 * an allow rule names a network tool or program. Computed once per policy.
 */
export function sandboxNarrowing(policy: Policy): SandboxNarrowing {
  let narrowing = narrowings.get(policy);
  if (narrowing !== undefined) return narrowing;
  const globs = (access: 'read' | 'write') => {
    const out = new Set<string>();
    for (const rule of policy.rules) {
      if (rule.behavior !== 'deny' || rule.specifier === undefined) continue;
      if (!isFamily(access, rule.tool)) continue;
      for (const pattern of patternsOf(rule, policy.home)) {
        for (const g of toSandboxGlobs(pattern.glob)) {
          out.add(g);
          // A rule on a directory covers what is inside it.
          if (!g.endsWith('/**')) out.add(`${g}/**`);
        }
      }
    }
    return [...out];
  };
  const keepsNetwork = policy.rules.some((rule) => {
    if (rule.behavior !== 'allow') return false;
    if (NETWORK_TOOLS.has(rule.tool)) return true;
    const shell = rule.shell;
    if (shell === undefined) return false;
    const words = shell.form === 'glob' ? [shell.first] : shell.words;
    const program = words[0];
    if (program === undefined) return false;
    if (NETWORK_PROGRAMS.has(program)) return true;
    const subs = Object.hasOwn(NETWORK_SUBCOMMANDS, program)
      ? NETWORK_SUBCOMMANDS[program]
      : undefined;
    return subs !== undefined && (subs.length === 0 || subs.includes(words[1] ?? ''));
  });
  narrowing = Object.freeze({
    denyRead: Object.freeze(globs('read')),
    denyWrite: Object.freeze(globs('write')),
    ...(keepsNetwork ? {} : { network: false as const }),
    by: 'permission rules',
  });
  narrowings.set(policy, narrowing);
  return narrowing;
}

/** The sandbox extension on a call, when one that can be narrowed is there. */
export function narrowableSandbox(exec: object): NarrowableSandbox | undefined {
  const sandbox = (exec as { sandbox?: unknown }).sandbox;
  return typeof sandbox === 'object' &&
    sandbox !== null &&
    typeof (sandbox as { narrow?: unknown }).narrow === 'function'
    ? (sandbox as NarrowableSandbox)
    : undefined;
}
