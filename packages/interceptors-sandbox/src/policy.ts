import { compileGlob, type ParsedGlob } from './glob';
import type { SandboxConfig } from './options';
import { isInside, lexicalAbsolute, resolveLikeKernelSync } from './resolve-path';

/** One deny glob, matchable against both the path as written and its resolved target. */
export interface DenyMatcher {
  readonly glob: ParsedGlob;
  /** The literal prefix as written and realpath'ed (the same string when no link is involved). */
  readonly prefixes: readonly string[];
  /** One RegExp per prefix. */
  readonly patterns: readonly RegExp[];
}

/**
 * The sandbox's rules with every path resolved now: the cwd, the writable roots and each deny
 * glob's literal prefix realpath'ed, so that a symlinked home or root cannot hide a match. Taken
 * afresh for each call, because links on disk change between calls.
 */
export interface PolicySnapshot {
  readonly config: SandboxConfig;
  /** The configured cwd, resolved. */
  readonly cwd: string;
  /** Writable roots as configured and resolved: `[given, real]` pairs. */
  readonly roots: readonly (readonly [string, string])[];
  readonly denyRead: readonly DenyMatcher[];
  readonly denyWrite: readonly DenyMatcher[];
}

const regexCache = new Map<string, RegExp>();
const compileCached = (prefix: string, rest: readonly string[]): RegExp => {
  const key = `${prefix}\0${rest.join('\0')}`;
  let re = regexCache.get(key);
  if (re === undefined) {
    re = compileGlob(prefix, rest);
    // Bounded: keys are the configured globs times the places their prefixes resolve to.
    if (regexCache.size > 4096) regexCache.clear();
    regexCache.set(key, re);
  }
  return re;
};

function matcher(glob: ParsedGlob): DenyMatcher {
  const prefixes = [glob.prefix];
  if (glob.prefix !== '' && glob.prefix !== '/') {
    let real = glob.prefix;
    try {
      real = resolveLikeKernelSync(glob.prefix, '/');
    } catch {
      // A prefix in a link loop leads nowhere the kernel could open: the literal form is enough.
    }
    if (real !== glob.prefix) prefixes.push(real);
  }
  return { glob, prefixes, patterns: prefixes.map((p) => compileCached(p, glob.rest)) };
}

/** Resolves the configured paths of a sandbox now (see {@link PolicySnapshot}). */
export function snapshotPolicy(config: SandboxConfig): PolicySnapshot {
  return {
    config,
    cwd: resolveLikeKernelSync(config.cwd, '/'),
    roots: config.roots.map((r) => [r, resolveLikeKernelSync(r, '/')] as const),
    denyRead: config.denyRead.map(matcher),
    denyWrite: config.denyWrite.map(matcher),
  };
}

/** The first deny glob that matches any of `paths`. */
export function firstMatch(
  matchers: readonly DenyMatcher[],
  paths: readonly string[],
): DenyMatcher | undefined {
  return matchers.find((m) => m.patterns.some((re) => paths.some((p) => re.test(p))));
}

/** A path argument that the sandbox refuses, with everything a person needs to see why. */
export interface PathViolation {
  /** The argument, as a dotted path (`edits.0.file`). */
  readonly arg: string;
  readonly access: 'read' | 'write';
  /** The path as the call gave it. */
  readonly path: string;
  /** Where the kernel would take it (symlinks followed), when it could be resolved. */
  readonly resolved?: string;
  /** Which rule refused it: a mode, a deny glob, or a shape rule. */
  readonly rule: string;
  /** Set when a deny glob refused it: which list, and the glob as configured. */
  readonly deny?: DenyRule;
}

/** A deny glob that refused a path: `denyRead` or `denyWrite`, and the glob as configured. */
export interface DenyRule {
  readonly list: 'denyRead' | 'denyWrite';
  readonly glob: string;
}

/** Why {@link checkAccess} refused a path: the rule in words, and the deny glob when it was one. */
export interface AccessRefusal {
  readonly rule: string;
  readonly deny?: DenyRule;
}

/**
 * Checks one path for `access`. `given` is what the call said, `resolved` where the kernel would
 * take it; deny globs are matched against both (and the home-expanded reading of a leading `~/`,
 * which the kernel does not expand but a tool might), so neither an innocent name for a secret
 * nor a secret's name for an innocent file slips through.
 */
export function checkAccess(
  policy: PolicySnapshot,
  access: 'read' | 'write',
  given: string,
  resolved: readonly string[],
): AccessRefusal | undefined {
  const { config } = policy;
  const lexical = [lexicalAbsolute(given, config.cwd), ...resolved];
  const denied = (list: DenyRule['list'], glob: string): AccessRefusal => ({
    rule: `${list} "${glob}"`,
    deny: { list, glob },
  });
  const read = firstMatch(policy.denyRead, lexical);
  if (read) return denied('denyRead', read.glob.source);
  if (access === 'read') return undefined;
  if (config.mode === 'read-only') return { rule: 'mode "read-only" permits no writes' };
  const write = firstMatch(policy.denyWrite, lexical);
  if (write) return denied('denyWrite', write.glob.source);
  if (config.mode === 'workspace-write') {
    const outside = resolved.find((r) => !policy.roots.some(([, real]) => isInside(r, real)));
    if (outside !== undefined) {
      const roots = policy.roots.map(([, real]) => real).join('", "');
      return { rule: `mode "workspace-write" permits writes only inside the roots ("${roots}")` };
    }
  }
  return undefined;
}
