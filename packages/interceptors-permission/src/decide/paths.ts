import { statSync } from 'node:fs';
import { dirname, isAbsolute, resolve as resolvePath } from 'node:path';
import { collectPathArgs } from '@dsh-tools/policy-kit';
import type { ToolView } from '@dsh-tools/protocol';
import { isProcessSubstitution, type ShellWord, syntheticWord } from '../shell/words';
import type { RuleBehavior } from '../types';
import { judgeBraceWords } from './brace-operands';
import { linkedGlobMatches, MAX_GLOB_ENTRIES } from './links';
import { type DecisionTrail, type Part, RANK, record } from './parts';
import { isFamily } from './policy';
import { patternsOf, policyIndex } from './policy-index';
import {
  expandHome,
  globsMayIntersect,
  isInside,
  operandGlobSegments,
  type ResolvedPath,
  resolveLikeKernel,
} from './resolve';
import { isPathFamily, type ParsedRule } from './rules';

const lexicalPath = (value: string, cwd: string, home: string): ResolvedPath => {
  const lexical = resolvePath(cwd, expandHome(value, home));
  return { lexical, real: lexical };
};

/** Whether `path` exists; a path through a file (`ENOTDIR`) or one not searchable does not. */
const exists = (path: string): boolean => {
  try {
    return statSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
};

const isDirectory = (path: string): boolean => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

/** Whether a path rule matches a resolved path; an allow must hold where the kernel really goes. */
export function pathMatches(
  trail: DecisionTrail,
  rule: ParsedRule,
  path: ResolvedPath,
  purpose: RuleBehavior,
): boolean {
  const patterns = patternsOf(rule, trail.policy.home, trail.policy.cwd);
  // An allow must hold where the kernel really goes; a deny or ask also catches the name used.
  return patterns.some((p) => p.test(path.real) || (purpose !== 'allow' && p.test(path.lexical)));
}

/** Read / Edit path rules for one resolved path; deny and ask only, or allow too. */
export function judgePath(
  trail: DecisionTrail,
  access: 'read' | 'write',
  path: ResolvedPath,
  subject: string,
  withAllow: boolean,
): Part {
  const family = (tool: string) => isFamily(access, tool);
  let ask: Part | undefined;
  let allow: Part | undefined;
  const lists = policyIndex(trail.policy).paths[access];
  for (const rule of withAllow ? lists.all : lists.guard) {
    if (rule.behavior === 'allow' && allow) continue;
    const hit = pathMatches(trail, rule, path, rule.behavior);
    record(trail, rule, hit, subject);
    if (!hit) continue;
    if (rule.behavior === 'deny') {
      return {
        severity: 'deny',
        subject,
        rule,
        reason: `${access === 'read' ? 'reading' : 'writing'} ${path.real}`,
      };
    }
    if (rule.behavior === 'ask')
      ask ??= {
        severity: 'ask',
        subject,
        rule,
        soft: true,
        reason: `${access === 'read' ? 'reads' : 'writes'} ${path.real}`,
      };
    else allow = { severity: 'allow', subject, rule, reason: `${access} ${path.real}` };
  }
  // A grant outranks an ask rule (it is a person's answer to that question, and the asking rule
  // is what a grant covers by default), as it does for shell commands; never a deny rule.
  if (withAllow) {
    for (const g of trail.grants) {
      if (!isPathFamily(g.rule.tool) || g.rule.specifier === undefined || !family(g.rule.tool))
        continue;
      const hit = pathMatches(trail, g.rule, path, 'allow');
      trail.entries.push({
        kind: 'grant',
        id: g.grant.id,
        rule: g.rule.text,
        matched: hit,
        subject,
      });
      if (hit)
        return { severity: 'allow', subject, grant: g, reason: `granted ${access} ${path.real}` };
    }
  }
  return (
    ask ??
    allow ?? {
      severity: 'none',
      subject,
      reason: `no rule covers ${access === 'read' ? 'reading' : 'writing'} ${path.real}`,
    }
  );
}

/** Whether any deny or ask path rule guards this access (else operands need no check). */
export function hasPathRules(trail: DecisionTrail, access: 'read' | 'write'): boolean {
  return policyIndex(trail.policy).paths[access].guard.length > 0;
}

/** A deny or ask path rule that some path matched by `segments` could meet. */
export function protectedGlob(
  trail: DecisionTrail,
  access: 'read' | 'write',
  segments: readonly string[],
  subject: string,
  note: string,
  excluded = false,
): Part | undefined {
  for (const rule of policyIndex(trail.policy).paths[access].guard) {
    // A reader that leaves out what deny rules cover (its call carries them as `exec.exclude`)
    // needs no question for them; an ask rule still asks, as excluding would answer it silently.
    if (excluded && rule.behavior === 'deny') continue;
    const hit = patternsOf(rule, trail.policy.home).some((p) =>
      globsMayIntersect(segments, p.segments),
    );
    record(trail, rule, hit ? 'maybe' : 'no', subject, note);
    if (hit) return { severity: 'maybe', subject, rule, reason: note };
  }
  return undefined;
}

/** Checks one shell file operand against path deny / ask rules, in every directory it may run in. */
export function shellOperand(
  trail: DecisionTrail,
  access: 'read' | 'write',
  word: ShellWord,
  cwds: readonly (string | null)[],
  knownProgram: boolean,
  subject: string,
  recursive: boolean | 'following links' = false,
  depth = 0,
): Part | undefined {
  if (!hasPathRules(trail, access) || isProcessSubstitution(word)) return undefined;
  // `~-` is $OLDPWD: after a cd on this line, one of the directories the line may have been in
  // (before one, the host's, which is not known).
  if (!word.literal && /^~-(\/|$)/.test(word.value) && cwds.length > 1 && !cwds.includes(null)) {
    const rest = `.${word.value.slice(2)}`;
    if (!/[$`*?[{]/.test(rest)) word = syntheticWord(rest, true);
  }
  // `/proc/$$/…` is the shell's own `/proc/self/…`.
  if (!word.literal && !word.glob) {
    const self = word.value.replace(
      /^\/proc\/(\$\$|\$\{\$\}|\$BASHPID|\$\{BASHPID\})\//,
      '/proc/self/',
    );
    if (self !== word.value && !/[$`]/.test(self)) word = syntheticWord(self, true);
  }
  const what = access === 'read' ? 'read' : 'write';
  if (!word.literal) {
    if (!knownProgram) return undefined;
    return {
      severity: 'maybe',
      subject,
      reason: `the file operand ${word.text} is not known before it runs and could be a file a path rule protects (${what})`,
    };
  }
  const braced = judgeBraceWords(word, subject, (each) =>
    shellOperand(trail, access, each, cwds, knownProgram, subject, recursive, depth),
  );
  if (braced !== 'as is') return braced;
  let worst: Part | undefined;
  for (const cwd of cwds) {
    const relative = !isAbsolute(word.value) && !word.value.startsWith('~');
    if (cwd === null) {
      if (relative && knownProgram) {
        return {
          severity: 'maybe',
          subject,
          reason: `the file operand ${word.text} is relative to a directory changed by cd to a value not known before it runs`,
        };
      }
      if (relative) continue;
    }
    const base = cwd ?? trail.policy.cwd;
    if (word.glob) {
      const glob = operandGlobSegments(word.value, base, trail.policy.home);
      const segments = recursive ? [...glob, '**'] : glob;
      const hit = protectedGlob(trail, access, segments, subject, `glob operand ${word.text}`);
      if (hit)
        return {
          ...hit,
          reason: `the glob ${word.text} could match a path rule ${hit.rule?.text} protects`,
        };
      // A match may be a symbolic link to a protected file (`cat src/*` with `src/env-link →
      // ../.env`): each match that is a link, or lies beyond one, is judged where it leads.
      const linked = linkedGlobMatches(glob);
      if (!linked.complete && !worst)
        worst = {
          severity: 'maybe',
          subject,
          reason: `the glob ${word.text} matches more than ${MAX_GLOB_ENTRIES} files, too many to look for symbolic links to protected paths among them`,
        };
      const part = judgeLinks(
        linked.paths,
        (path) =>
          shellOperand(
            trail,
            access,
            syntheticWord(path, true),
            [base],
            knownProgram,
            subject,
            recursive,
            depth,
          ),
        (path) => `the glob ${word.text} matches ${path}, a symbolic link or a path through one`,
      );
      if (part?.severity === 'deny') return part;
      worst ??= part;
      continue;
    }
    // Programs known to take files get the kernel's resolution (symlinks followed); for any other
    // program a word is only possibly a file, so it is checked as written (`git add .env`).
    const path = knownProgram
      ? resolveLikeKernel(word.value, base, trail.policy.home)
      : lexicalPath(word.value, base, trail.policy.home);
    const part = judgePath(trail, access, path, subject, false);
    if (part.severity === 'deny') return part;
    if (part.severity === 'ask' && !worst) worst = part;
    // A directory read with what is inside; a path that does not exist (a pathspec of history)
    // may have held anything.
    if (recursive && (isDirectory(path.real) || !exists(path.real))) {
      const segments = [...path.real.split('/').filter((s) => s !== ''), '**'];
      const inside = protectedGlob(
        trail,
        access,
        segments,
        subject,
        `directory operand ${word.text}`,
      );
      if (inside)
        return {
          ...inside,
          reason: `${word.text} is a directory read recursively that holds paths rule ${inside.rule?.text} protects`,
        };
      // A reader that follows the links inside the tree (`grep -R`, `cp -rL`) reads where each
      // leads: every link in the tree is judged as an operand of its own.
      if (recursive === 'following links' && isDirectory(path.real)) {
        const found = linkedGlobMatches([...segments, '*']);
        if (!found.complete || depth >= MAX_LINK_DEPTH) {
          worst ??= {
            severity: 'maybe',
            subject,
            reason: `${word.text} is read following its symbolic links, and holds too many files (or links) to look where each leads`,
          };
          continue;
        }
        const part = judgeLinks(
          found.paths,
          (link) =>
            shellOperand(
              trail,
              access,
              syntheticWord(link, true),
              [base],
              knownProgram,
              subject,
              recursive,
              depth + 1,
            ),
          (link) => `${word.text} is read following its symbolic links, and ${link} leads on`,
        );
        if (part?.severity === 'deny') return part;
        worst ??= part;
      }
    }
  }
  return worst;
}

/** How many links deep a tree read following its links is looked through before it asks. */
const MAX_LINK_DEPTH = 8;

/**
 * Each of `paths` (links, or paths through one) judged as an operand of its own by `judge`, its
 * reason prefixed by `how` it was reached: the first deny, else the first other finding.
 */
function judgeLinks(
  paths: readonly string[],
  judge: (path: string) => Part | undefined,
  how: (path: string) => string,
): Part | undefined {
  let first: Part | undefined;
  for (const path of paths) {
    const part = judge(path);
    if (part === undefined) continue;
    const through = { ...part, reason: `${how(path)}: ${part.reason}` };
    if (part.severity === 'deny') return through;
    first ??= through;
  }
  return first;
}

/** The repository holding `dir` (the directory with `.git`), if any. */
export function repositoryOf(dir: string): string | undefined {
  for (let d = dir; ; d = dirname(d)) {
    if (exists(`${d}/.git`)) return d;
    if (dirname(d) === d) return undefined;
  }
}

/**
 * A command that shows the repository's history without a pathspec may show any file ever
 * committed: a read of the whole repository, checked against the path rules.
 */
export function historyRead(
  trail: DecisionTrail,
  cwds: readonly (string | null)[],
  subject: string,
): Part | undefined {
  if (!hasPathRules(trail, 'read')) return undefined;
  for (const cwd of cwds) {
    // After a cd to a directory not known before it runs, the history shown may be that of any
    // repository, not only the working directory's: it is read as the whole filesystem.
    const repo = cwd === null ? undefined : repositoryOf(cwd);
    if (repo === undefined && cwd !== null) continue;
    const segments = [...(repo ?? '/').split('/').filter((s) => s !== ''), '**'];
    const hit = protectedGlob(trail, 'read', segments, subject, 'the history of the repository');
    if (hit)
      return {
        ...hit,
        reason: `it shows the repository's history, which may hold files rule ${hit.rule?.text} protects (name the paths it may show after --)`,
      };
  }
  return undefined;
}

/** The parts of a call with path hints: each path argument under the tool's own rules and the Read / Edit families. */
export function pathParts(
  trail: DecisionTrail,
  tool: ToolView,
  toolRules: readonly ParsedRule[],
): Part[] {
  const parts: Part[] = [];
  for (const hint of tool.hints.paths ?? []) {
    // The kit's reader, as the sandbox's: a container of the wrong kind on the way to a path (a
    // string where `edits.*.path` needs an array) is a problem to ask about, never nothing to check.
    const collected = collectPathArgs(trail.exec.arguments, [hint]);
    if (typeof collected === 'string') {
      parts.push({
        severity: 'unknown',
        subject: `${hint.arg}`,
        reason: `argument ${hint.arg} is declared a path, but the call does not fit it: ${collected}`,
      });
      continue;
    }
    const given: unknown[] = collected.map((found) => found.value);
    // A reader given no path reads where it runs (a search tool's default is the working
    // directory): judged as that directory. A writer needs its path, so its schema requires it.
    if (given.length === 0 && hint.access === 'read' && !hint.arg.includes('*')) given.push('.');
    for (const value of given) {
      if (value === undefined) continue;
      const subject = `${hint.arg}=${typeof value === 'string' ? value : JSON.stringify(value)}`;
      if (typeof value !== 'string' || value.includes('\u0000') || value === '') {
        parts.push({
          severity: 'unknown',
          subject,
          reason: `argument ${hint.arg} is declared a path but is not a usable path string (empty, NUL, or not a string)`,
        });
        continue;
      }
      const path = resolveLikeKernel(value, trail.policy.cwd, trail.policy.home);
      trail.entries.push({
        kind: 'path',
        arg: hint.arg,
        access: hint.access,
        path: value,
        resolved: path.real,
      });
      // A rule naming this tool with a specifier reads the specifier as a path pattern.
      let own: Part | undefined;
      for (const rule of toolRules) {
        const hit = pathMatches(trail, rule, path, rule.behavior);
        record(trail, rule, hit, subject);
        if (
          hit &&
          (!own || RANK[rule.behavior === 'allow' ? 'allow' : rule.behavior] > RANK[own.severity])
        ) {
          own = {
            severity: rule.behavior,
            subject,
            rule,
            soft: rule.behavior === 'ask',
            reason: `${hint.access} ${path.real}`,
          };
        }
      }
      const family = judgePath(trail, hint.access, path, subject, true);
      // The tool's own rule decides when it outranks the family's part, and its allow decides a
      // path no family rule covers (an allow is ranked below `none`, which only means "no rule").
      let part =
        own &&
        (RANK[own.severity] > RANK[family.severity] ||
          (own.severity === 'allow' && family.severity === 'none'))
          ? own
          : family;
      // A directory given to a reader may be read with everything inside it (a search tool): the
      // paths rules protect inside it make it ask, unless the tool leaves out what the call's
      // exclusion covers (its hint says `honoursExclude`), which then carries the deny rules.
      if (hint.access === 'read' && part.severity !== 'deny' && isDirectory(path.real)) {
        const segments = [...path.real.split('/').filter((s) => s !== ''), '**'];
        const inside = protectedGlob(
          trail,
          'read',
          segments,
          subject,
          `directory ${value}`,
          hint.honoursExclude === true,
        );
        if (inside && RANK[inside.severity] > RANK[part.severity])
          part = {
            ...inside,
            reason: `${value} is a directory that holds paths rule ${inside.rule?.text} protects, and the tool may read everything inside it`,
          };
      }
      const inside = trail.policy.workDirs.some((dir) => isInside(path.real, dir));
      parts.push({
        ...part,
        reason: part.reason + (inside ? '' : ' (outside the working directories)'),
      });
      (parts[parts.length - 1] as Part & { outside?: boolean }).outside = !inside;
      (parts[parts.length - 1] as Part & { access?: string }).access = hint.access;
    }
  }
  return parts;
}
