import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InterceptedExecution, ToolHints, ToolSource } from '@dsh-tools/protocol';
import fc from 'fast-check';
import { beforeAll, expect } from 'vitest';
import {
  type PermissionDecision,
  type PermissionInterceptor,
  type PermissionOptions,
  permissionInterceptor,
} from '../src/index';

/** A call of a tool with the given hints, as the registry hands it to interceptors. */
export function call(
  name: string,
  args: Record<string, unknown>,
  hints: ToolHints = {},
  source: ToolSource = { kind: 'local' },
): InterceptedExecution {
  return {
    callId: `call-${name}`,
    name,
    arguments: args,
    tool: { name, description: name, parameters: { type: 'object' }, hints, source },
  };
}

export const BASH_HINTS: ToolHints = { command: 'command' };
export const READ_HINTS: ToolHints = {
  readOnly: true,
  paths: [{ arg: 'file_path', access: 'read' }],
};
export const EDIT_HINTS: ToolHints = { paths: [{ arg: 'file_path', access: 'write' }] };

/** A shell call (`Bash` with `command`). */
export const bash = (command: string): InterceptedExecution =>
  call('Bash', { command }, BASH_HINTS);
/** A read call (`Read` with `file_path`). */
export const read = (file: string): InterceptedExecution =>
  call('Read', { file_path: file }, READ_HINTS);
/** An edit call (`Edit` with `file_path`). */
export const edit = (file: string): InterceptedExecution =>
  call('Edit', { file_path: file }, EDIT_HINTS);

/**
 * A real project in a temp dir: `.env`, `secrets/key`, `src/a.ts`, symlinks `src/env-link` →
 * `.env` and `escape` → the parent directory, a home with `.ssh/id_rsa`.
 */
export function makeProject(): { root: string; home: string } {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'perm-')));
  const root = join(base, 'project');
  const home = join(base, 'home');
  mkdirSync(join(root, 'src', 'sub'), { recursive: true });
  mkdirSync(join(root, 'secrets'), { recursive: true });
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(root, '.env'), 'TOKEN=1\n');
  writeFileSync(join(root, 'secrets', 'key'), 'k\n');
  writeFileSync(join(root, 'src', 'a.ts'), 'export {};\n');
  writeFileSync(join(root, 'README.md'), '# x\n');
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'key\n');
  symlinkSync(join(root, '.env'), join(root, 'src', 'env-link'));
  symlinkSync(join(root, 'secrets'), join(root, 'src', 'secrets-link'));
  symlinkSync(base, join(root, 'escape'));
  return { root, home };
}

/**
 * A policy made once for a test file, in a `beforeAll` (so a file that makes none pays nothing):
 * `explain(line)` and `behaviorOf(line)` judge a shell line under it.
 */
export function filePolicy(options: PermissionOptions): {
  readonly explain: (line: string) => Promise<PermissionDecision>;
  readonly behaviorOf: (line: string) => Promise<PermissionDecision['behavior']>;
} {
  let policy: PermissionInterceptor | undefined;
  beforeAll(async () => {
    policy = permissionInterceptor(options);
    await policy.ready;
  });
  const ready = (): PermissionInterceptor => {
    if (policy === undefined)
      throw new Error('filePolicy: used outside a test (before its beforeAll ran)');
    return policy;
  };
  return {
    explain: (line) => ready().explain(bash(line)),
    behaviorOf: async (line) => (await ready().explain(bash(line))).behavior,
  };
}

/** One option of a program that writes, reads or runs, and a harmless flag to combine it with. */
export interface RiskyOption {
  readonly program: string;
  /** The long name, when the program has one (python's `-c` has none). */
  readonly long?: string;
  readonly short?: string;
  readonly flag?: string;
  readonly value: string;
  readonly after: string;
  /**
   * The program does not parse with getopt: no abbreviation, no value attached to a short option
   * (node refuses `-e1` and `--eva=`, running nothing).
   */
  readonly exact?: boolean;
}

/**
 * Every way one option may be spelled: `--opt=value`, `--opt value`, a unique prefix of the long
 * name, the short option separated and attached, and after a harmless flag in a cluster.
 */
export const optionSpellings = (spec: RiskyOption): string[] => {
  const out: string[] = [];
  if (spec.long !== undefined) {
    out.push(`--${spec.long}=${spec.value}`, `--${spec.long} ${spec.value}`);
    const prefix = spec.long.slice(0, Math.max(3, spec.long.length - 2));
    if (!spec.exact) out.push(`--${prefix}=${spec.value}`);
  }
  if (spec.short) out.push(`-${spec.short} ${spec.value}`);
  if (spec.short && !spec.exact) {
    out.push(`-${spec.short}${spec.value}`);
    if (spec.flag) {
      out.push(
        `-${spec.flag}${spec.short} ${spec.value}`,
        `-${spec.flag}${spec.short}${spec.value}`,
      );
    }
  }
  return out;
};

/**
 * A line that spells one option one way: the program, a harmless flag of it first when `before`
 * (it must not hide the option), the spelling, then what follows.
 */
export const spelledLine = (spec: RiskyOption, spelling: string, before = false): string =>
  `${spec.program}${before && spec.flag ? ` -${spec.flag}` : ''} ${spelling} ${spec.after}`.trim();

/** Every option spelled every way (`optionSpellings`), with a harmless flag before it or not. */
export const spellingCases = (
  risky: readonly RiskyOption[],
): fc.Arbitrary<{ spec: RiskyOption; spelling: string; before: boolean }> =>
  fc.constantFrom(...risky).chain((spec) =>
    fc.record({
      spec: fc.constant(spec),
      spelling: fc.constantFrom(...optionSpellings(spec)),
      before: fc.boolean(),
    }),
  );

/**
 * The seed of a property test: `FC_SEED` replays a run, else one from the clock. Printed with
 * what it seeds, so that a failure seen once can be replayed.
 */
export const propertySeed = (what: string): number => {
  const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
  console.log(`${what}: fast-check seed ${seed} (FC_SEED=${seed} replays)`);
  return seed;
};

type Explain = (line: string) => Promise<PermissionDecision>;

/** Each of the lines the policy allows, with its reason: a spelling check expects none. */
export async function allowedAmong(explain: Explain, lines: Iterable<string>): Promise<string[]> {
  const allowed: string[] = [];
  for (const line of lines) {
    const decision = await explain(line);
    if (decision.behavior === 'allow') allowed.push(`${line}: ${decision.reason}`);
  }
  return allowed;
}

/** Each of the lines the policy does not allow, with its reason: everyday lines expect none. */
export async function notAllowedAmong(
  explain: Explain,
  lines: Iterable<string>,
): Promise<string[]> {
  const refused: string[] = [];
  for (const line of lines) {
    const decision = await explain(line);
    if (decision.behavior !== 'allow') refused.push(`${line}: ${decision.reason}`);
  }
  return refused;
}

/**
 * The spelling property: no line made of a generated case is allowed. Seeded (`propertySeed`),
 * the seed printed under `what`.
 */
export const neverAllowed = <T>(
  what: string,
  explain: Explain,
  cases: fc.Arbitrary<T>,
  lineOf: (generated: T) => string,
  numRuns: number,
): Promise<void> =>
  fc.assert(
    fc.asyncProperty(cases, async (generated) => {
      const line = lineOf(generated);
      const decision = await explain(line);
      expect(decision.behavior, `${line}: ${decision.reason}`).not.toBe('allow');
    }),
    { seed: propertySeed(what), numRuns },
  );

/** The spelling property over options: no spelling of any of them, after a flag or not, is allowed. */
export const noSpellingAllowed = (
  what: string,
  explain: Explain,
  risky: readonly RiskyOption[],
  numRuns: number,
): Promise<void> =>
  neverAllowed(
    what,
    explain,
    spellingCases(risky),
    ({ spec, spelling, before }) => spelledLine(spec, spelling, before),
    numRuns,
  );
