import { GLOB_CHARS } from '@dsh-tools/policy-kit';
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
 * Whether a component of a written-out tail, its wildcards aside, is text the sandbox reads as
 * picomatch does: not `***`, and no `+` or `@` (after a group they are syntax: `{a,b}+`).
 */
const plainBut = (component: string): boolean =>
  !GLOB_CHARS.test(component.replace(/[*?]/g, '')) && !/[+@]|\*\*\*/.test(component);
/** The most globs one rule's brace lists may make before the rule is widened instead. */
const MAX_GLOBS = 64;

/**
 * A picomatch glob as the sandbox's smaller dialect (`*`, `?`, `**`), never narrower. Failing
 * closed on what it does not understand: the components up to the first that holds any syntax
 * are the glob's literal prefix, and unless the rest is text, `*`, `?` and `**` once its brace
 * lists are written out (at most {@link MAX_GLOBS} globs, each member plain text), the sandbox
 * denies everything below the prefix (`prefix/**`). picomatch has more syntax than a list of
 * cases could follow, and some of it reaches past a component: a range or a POSIX class makes
 * its literal dots match `/`, a class may hold `/`, a `|` alternates the whole pattern, `\\W` is a
 * regular-expression class, quotes quote. Those paths all lie below the prefix, as the permission
 * layer, which matches a path only below that prefix, also finds them. Where the rest is kept,
 * each `?` becomes `*` (picomatch's `?` is one UTF-16 unit, half an emoji; the sandbox's is one
 * character), and the glob's own text is kept as a name, its syntax made `*`: picomatch matches a
 * path equal to the glob before it reads it. A component starting with `~` (which the sandbox
 * reads as home) starts with `*` instead. Widening is safe here: these are deny globs, and a
 * wider deny only takes away more.
 */
export function toSandboxGlobs(glob: string): string[] {
  const components = glob.split('/');
  let literal = 0;
  while (literal < components.length && !GLOB_CHARS.test(components[literal] as string)) literal++;
  if (literal === components.length) return [sandboxSafe(glob)];
  const prefix = components.slice(0, literal).join('/');
  const below = [sandboxSafe(`${prefix}/**`)];
  const tails = writtenOut(components.slice(literal).join('/'));
  if (tails === undefined) return below;
  const out = new Set<string>();
  for (const tail of tails) {
    if (!tail.split('/').every(plainBut)) return below;
    out.add(sandboxSafe(`${prefix}/${tail}`.replaceAll('?', '*')));
  }
  out.add(sandboxSafe(glob.replace(new RegExp(GLOB_CHARS.source, 'g'), '*')));
  return [...out];
}

/**
 * A glob the sandbox takes: a component that holds `**` is `**` (the sandbox has no `a**`; it is
 * wider), one that starts with `~` starts with `*`.
 */
const sandboxSafe = (glob: string): string =>
  glob
    .split('/')
    .map((c) => (c.includes('**') ? '**' : c.startsWith('~') ? `*${c.slice(1)}` : c))
    .join('/');

/**
 * The tails a glob's brace lists make (`{a,b}/{c,d}` four), or `undefined` when a group is not a
 * plain list: nested, unclosed, a lone member (picomatch reads `{a}` as itself), a range
 * (`{1..3}`), a member that is `.` or `..` or holds syntax, or more than {@link MAX_GLOBS} in all.
 */
function writtenOut(tail: string): string[] | undefined {
  let out = [''];
  let at = 0;
  while (at < tail.length) {
    const open = tail.indexOf('{', at);
    const close = tail.indexOf('}', at);
    if (open < 0) {
      if (close >= 0) return undefined;
      const rest = tail.slice(at);
      out = out.map((t) => t + rest);
      break;
    }
    // A `}` before the `{` (or none after it) is no list; else the first `}` closes this group.
    if (close < open) return undefined;
    const members = tail.slice(open + 1, close).split(',');
    if (
      members.length < 2 ||
      members.some((m) => m === '.' || m.includes('..') || GLOB_CHARS.test(m))
    ) {
      return undefined;
    }
    if (out.length * members.length > MAX_GLOBS) return undefined;
    const text = tail.slice(at, open);
    out = out.flatMap((t) => members.map((m) => t + text + m));
    at = close + 1;
  }
  return out;
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
