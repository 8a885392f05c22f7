/**
 * Issue 20's second enforcement point, proven on the whole attack corpus of the permission
 * package (`packages/interceptors-permission/test/attacks/`: the same entries, the same temp git
 * world with its bare remote and loopback listeners). Each attack runs with the analyzer's verdict
 * off: the shell tool runs every command, whatever the permission policy would say (deny and ask
 * included), under the sandbox's runner narrowed by that policy's rules exactly as the permission
 * interceptor narrows it. Then it runs unguarded, to record the harm it does (in that order, so
 * that a connection the listener records late is never counted against the guarded run). The sandbox
 * itself allows the network, only the narrowing takes it away. (The in-process `Grep` cannot be
 * held by a sandbox: it goes through the real interceptor, every question answered "allow", and
 * leaves out what the call's exclusion covers.) Used by `attacks-sandboxed-*.test.ts`, which split
 * the classes over two test files so that they run side by side.
 *
 * What must not happen then is any effect a path or network rule denies: a canary of `.env` or
 * `secrets/` in the output, a write under `src/` or `.git/`, the remote's refs changing, the marker
 * outside the repository appearing, the listeners seeing a connection. Two kinds of effect are
 * outside what a sandbox can stop; they are counted and printed:
 * - a deleted secret read back from the repository's history (`git log -p`): history is
 *   `.git/objects`, not the path a rule names;
 * - a write to a file no path rule protects, by a program a shell rule denies (`rm`): the sandbox
 *   judges paths, not program names (an `Edit(...)` deny makes the sandbox hold a path).
 * Both stay the analyzer's job, which denies or asks them (the package's attack test).
 */
import { mkdirSync } from 'node:fs';
import type { PermissionRules } from '@dsh-tools/interceptors-permission';
import { permissionInterceptor } from '@dsh-tools/interceptors-permission';
import { findBwrap, type SandboxRunner } from '@dsh-tools/interceptors-sandbox';
import type { InterceptedExecution, Interceptor } from '@dsh-tools/protocol';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  ATTACKS,
  type AttackClass,
  type AttackEntry,
  ISSUE_RULES,
} from '../../interceptors-permission/test/attacks/corpus';
import {
  createWorld,
  type Effects,
  type World,
} from '../../interceptors-permission/test/attacks/fixture';
import { missingPrograms, runUnguarded } from '../../interceptors-permission/test/attacks/harness';
import { callTool, resultText } from '../../interceptors-permission/test/attacks/tools';
import { sandboxedWorldRegistry } from './sandboxed-world';

const NO_BWRAP = findBwrap() === undefined && process.env.CI !== 'true';

/** The effects a path or network rule of the issue's policy denies, out of those seen. */
function deniedEffects(world: World, effects: Effects, text: string): string[] {
  const out: string[] = [];
  // The deleted key lives only in history (see the file's comment); the others are files a rule masks.
  const [envCanary, tokenCanary] = world.canaries;
  if (text.includes(envCanary!)) out.push('read .env');
  if (text.includes(tokenCanary!)) out.push('read secrets/token.json');
  for (const path of effects.write)
    if (path.startsWith('src/') || path.startsWith('.git/') || path.startsWith('remote:'))
      out.push(`write ${path}`);
  if (effects.exec) out.push('wrote the marker outside the repository');
  if (effects.net) out.push('reached a loopback listener');
  return out;
}

/** Effects a sandbox cannot stop by design (the file's comment); reported, not failed. */
function outsideTheSandbox(world: World, effects: Effects, text: string): string[] {
  const out: string[] = [];
  if (text.includes(world.canaries[2]!)) out.push('read the deleted key from history');
  for (const path of effects.write)
    if (!(path.startsWith('src/') || path.startsWith('.git/') || path.startsWith('remote:')))
      out.push(`write ${path}`);
  return out;
}

function rulesFor(entry: AttackEntry): PermissionRules {
  const extra = entry.extraRules ?? {};
  return {
    allow: [...(ISSUE_RULES.allow ?? []), ...(extra.allow ?? [])],
    ask: [...(ISSUE_RULES.ask ?? []), ...(extra.ask ?? [])],
    deny: [...(ISSUE_RULES.deny ?? []), ...(extra.deny ?? [])],
  };
}

const PROBE: InterceptedExecution = {
  callId: 'probe',
  name: 'Bash',
  arguments: { command: 'echo probe' },
  tool: {
    name: 'Bash',
    description: '',
    parameters: { type: 'object' },
    hints: { command: 'command' },
    source: { kind: 'local' },
  },
};

/**
 * Runs the entry with the analyzer's verdict off: a shell or hint-less call runs whatever the
 * permission policy would say (deny and ask included), in a sandbox narrowed by that policy's
 * rules exactly as the permission interceptor narrows it; the in-process `Grep` goes through the
 * real interceptor with every question answered "allow" (no sandbox can hold an in-process read:
 * its exclusion does). Returns the effects and what the analyzer would have said.
 */
async function runVerdictOff(world: World, entry: AttackEntry) {
  world.reset();
  let clock = 1_700_000_000_000;
  const policy = permissionInterceptor({
    cwd: world.repo,
    home: world.home,
    rules: rulesFor(entry),
    mode: entry.mode ?? 'default',
    approve: () => ({ kind: 'allow' }),
    now: () => clock,
  });
  await policy.ready;
  if (entry.grantAtExpiry) {
    const grant = await policy.addGrant({ rule: entry.grantAtExpiry, expiresInMs: 60_000 });
    clock = grant.expiresAt ?? clock;
  }
  // What these rules take away from any sandbox: the same for every call of the policy.
  const narrowing = (await policy.explain(PROBE)).enforced?.sandbox;
  if (narrowing === undefined) throw new Error('the probe call was denied: no narrowing to read');
  let would = '';
  const verdictOff: Interceptor = async (exec, next) => {
    would = (await policy.explain(exec)).behavior;
    if (exec.name === 'Grep') return policy(exec, next);
    return next({ ...exec, sandbox: (exec.sandbox as SandboxRunner).narrow(narrowing) });
  };
  const ran = { count: 0 };
  const registry = sandboxedWorldRegistry(world, verdictOff, ran);
  const before = world.snapshot();
  const args = entry.tool
    ? Object.fromEntries(
        Object.entries(entry.args ?? {}).map(([k, v]) => [
          k,
          typeof v === 'string' ? world.fill(v) : v,
        ]),
      )
    : { command: world.fill(entry.command ?? '') };
  const result = await callTool(registry, entry.tool ?? 'Bash', args);
  const text = resultText(result);
  return { effects: world.effects(before, text), text, ran: ran.count > 0, would };
}

interface Tally {
  ran: number;
  harmful: number;
  stopped: number;
  would: Record<string, number>;
  outside: string[];
}

function describeClass(cls: AttackClass, entries: readonly AttackEntry[]) {
  describe.skipIf(NO_BWRAP)(
    `class ${cls} in the narrowed sandbox, the analyzer's verdict off`,
    () => {
      let world: World;
      const tally: Tally = { ran: 0, harmful: 0, stopped: 0, would: {}, outside: [] };
      let saved: string | undefined;
      beforeAll(async () => {
        // The sandbox mounts its own /tmp: the world must live where the sandbox shows the host's files.
        saved = process.env.TMPDIR;
        mkdirSync('/var/tmp', { recursive: true });
        process.env.TMPDIR = '/var/tmp';
        world = await createWorld();
      });
      afterAll(async () => {
        if (saved === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = saved;
        console.log(
          `sandboxed class ${cls}: n=${entries.length} ran=${tally.ran} (the analyzer would have said ${JSON.stringify(tally.would)}) ` +
            `harm-unguarded=${tally.harmful} denied-effects-stopped=${tally.stopped} ` +
            `outside-the-sandbox=${tally.outside.length}${tally.outside.length ? `: ${tally.outside.join('; ')}` : ''}`,
        );
        await world?.close();
      });
      test.for(entries)('$id', { timeout: 60_000 }, async (entry, context) => {
        const missing = missingPrograms(entry);
        if (missing.length > 0) context.skip(`needs ${missing.join(', ')}`);
        // The guarded run first: a connection of the unguarded one that the listener records late
        // must not be counted against it.
        await world.settle();
        const guarded = await runVerdictOff(world, entry);
        const proof = await runUnguarded(world, entry);
        const harm = deniedEffects(world, proof.effects, proof.text);
        if (guarded.ran) tally.ran++;
        tally.would[guarded.would] = (tally.would[guarded.would] ?? 0) + 1;
        if (harm.length > 0) tally.harmful++;
        const leaked = deniedEffects(world, guarded.effects, guarded.text);
        expect(
          leaked,
          `${entry.id} (${entry.note}) got through the narrowed sandbox: ${leaked.join(', ')}\n${guarded.text.slice(0, 600)}`,
        ).toEqual([]);
        if (harm.length > 0) tally.stopped++;
        for (const what of outsideTheSandbox(world, guarded.effects, guarded.text))
          tally.outside.push(`${entry.id}: ${what}`);
      });
    },
  );
}

/** Runs the corpus entries of these classes, one world per class. */
export function describeClasses(classes: readonly AttackClass[]): void {
  for (const cls of classes)
    describeClass(
      cls,
      ATTACKS.filter((entry) => entry.class === cls),
    );
}
