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
 * A picomatch glob as the sandbox's smaller dialect (`*`, `?`, `**`): brace lists expanded (a range
 * or a lone member widened to `*`), a bracket class widened to `?`, an extglob to `*`. Widening is
 * safe here: these are deny globs, and a wider deny only takes away more.
 */
export function toSandboxGlobs(glob: string): string[] {
  const brace = /\{([^{}]*)\}/.exec(glob);
  if (brace) {
    const members = brace[1]!.split(',');
    // A range (`{1..3}`, `{a..c}`, `{01..09..2}`, alone or in a list) is the names picomatch
    // counts, which no member spells, and a lone member may be read either way: the group is
    // widened to `*`.
    const options = members.length === 1 || members.some((m) => m.includes('..')) ? ['*'] : members;
    return options.flatMap((o) =>
      toSandboxGlobs(glob.slice(0, brace.index) + o + glob.slice(brace.index + brace[0].length)),
    );
  }
  const widened = glob
    .replace(/[@!+*?]\([^)]*\)/g, '*')
    .replace(/\[[^\]]*\]/g, '?')
    .replace(/[{}()!]/g, '*');
  // `*` next to `**` in one component is not a whole-component `**`: widen it to `**`.
  const components = widened.split('/').map((c) => (c.includes('**') ? '**' : c));
  return [components.join('/')];
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
