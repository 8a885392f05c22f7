import { randomUUID } from 'node:crypto';
import type { ApprovalGrant, InterceptedExecution } from '@dsh-tools/protocol';
import type { ActiveGrant } from '../decide/policy';
import { PermissionRuleError } from '../decide/rules';
import type { GrantStore, PermissionDecision, PermissionGrant, SharedGrantStore } from '../types';
import { ruleText } from './approval';
import { defaultGrantRule, grantOrigin } from './rules';
import { GrantStoreError } from './store';

/**
 * What taking the uses of a decision's grants came to: the grants that no longer applied (none:
 * the call may run on them), or `unavailable` when the store could not be asked (no grant applies).
 */
export type GrantTake = { readonly refused: readonly string[] } | { readonly unavailable: true };

/** The grants a policy holds: loaded from a store, expired and used up as the clock and calls go. */
export interface GrantBook {
  /** Whether a {@link SharedGrantStore} keeps them (asked before every decision). */
  readonly shared: boolean;
  /** Reads the store; a grant that cannot be read is reported and skipped. Rejects when the store does. */
  load(): Promise<void>;
  /** Grants still in force now (neither expired nor used up), as last known; drops the others. */
  active(): ActiveGrant[];
  /** Grants in force for a decision now: a shared store is asked (failing: reported, none apply). */
  current(): Promise<ActiveGrant[]>;
  /** Adds a grant; throws a {@link PermissionRuleError} on a malformed rule, expiry or use count. */
  add(
    rule: string,
    by: string,
    expiresInMs: number | undefined,
    uses: number | undefined,
    question?: PermissionGrant['origin']['question'],
  ): PermissionGrant;
  /** Adds a grant and settles when the store has it (a shared store's refusal rejects). */
  addStored(
    rule: string,
    by: string,
    expiresInMs: number | undefined,
    uses: number | undefined,
  ): Promise<PermissionGrant>;
  /**
   * Takes one use of each counted grant a call relies on, before it runs: all of them, or none
   * when one no longer applies (another call, or another process, took its last use).
   */
  take(used: readonly PermissionGrant[]): Promise<GrantTake>;
  /** Grants in force now; rejects when the store cannot be read. */
  list(): Promise<readonly PermissionGrant[]>;
  /** Removes a grant; whether it existed. Settles when the store has saved. */
  revoke(id: string): Promise<boolean>;
  /** Settles when every save started so far has finished (or failed and been reported). */
  saved(): Promise<void>;
}

/**
 * A grant at its exact expiry is expired: `expiresAt` is the first moment it no longer applies
 * (an approver's "for 30 minutes" ends at the 30th minute, not one tick later).
 */
export const grantInForce = (grant: PermissionGrant, now: number): boolean =>
  (grant.expiresAt === undefined || grant.expiresAt > now) && grant.usesLeft !== 0;

/**
 * Makes a new grant of `rule`, checked: throws a {@link PermissionRuleError} on a malformed rule,
 * an expiry that is not a number > 0, or a use count that is not a whole number > 0. For hosts and
 * tools that put grants into a store themselves (an operator's command line).
 */
export function createPermissionGrant(grant: {
  readonly rule: string;
  readonly by: string;
  readonly expiresInMs?: number | undefined;
  readonly uses?: number | undefined;
  readonly now?: number | undefined;
  readonly question?: PermissionGrant['origin']['question'];
}): PermissionGrant {
  return madeGrant(grant).grant;
}

function madeGrant(g: Parameters<typeof createPermissionGrant>[0]): ActiveGrant {
  const { expiresInMs, uses, question } = g;
  if (expiresInMs !== undefined && !(Number.isFinite(expiresInMs) && expiresInMs > 0)) {
    throw new PermissionRuleError(
      `A grant's expiresInMs must be a number > 0 (got ${expiresInMs}).`,
    );
  }
  if (uses !== undefined && !(Number.isInteger(uses) && uses > 0)) {
    throw new PermissionRuleError(`A grant's uses must be a whole number > 0 (got ${uses}).`);
  }
  const at = g.now ?? Date.now();
  const grant: PermissionGrant = {
    id: randomUUID(),
    rule: g.rule,
    ...(expiresInMs !== undefined && { expiresAt: at + expiresInMs }),
    ...(uses !== undefined && { usesLeft: uses }),
    origin: { by: g.by, at, ...(question && { question }) },
  };
  return { grant, rule: grantOrigin(grant) };
}

/** Keeps the grants of one interceptor, in `store` (see {@link GrantStore}, {@link SharedGrantStore}). */
export function createGrantBook(
  store: GrantStore | SharedGrantStore,
  now: () => number,
  report: (error: unknown) => void,
): GrantBook {
  return 'spend' in store
    ? createSharedGrantBook(store, now, report)
    : createSavedGrantBook(store, now, report);
}

/** A book over a whole-list store: this process alone decides, persisting every change in order. */
function createSavedGrantBook(
  store: GrantStore,
  now: () => number,
  report: (error: unknown) => void,
): GrantBook {
  let grants: ActiveGrant[] = [];
  let saving: Promise<void> = Promise.resolve();
  const persist = (): Promise<void> => {
    const snapshot = grants.map((g) => g.grant);
    saving = saving.then(() => store.save(snapshot)).catch(report);
    return saving;
  };
  const active = () => {
    const t = now();
    const live = grants.filter((g) => grantInForce(g.grant, t));
    if (live.length !== grants.length) {
      grants = live;
      void persist();
    }
    return live;
  };
  const add: GrantBook['add'] = (rule, by, expiresInMs, uses, question) => {
    const made = madeGrant({ rule, by, expiresInMs, uses, now: now(), question });
    grants = [...grants, made];
    void persist();
    return made.grant;
  };
  return {
    shared: false,
    async load() {
      grants = [];
      for (const grant of await store.load()) {
        try {
          grants.push({ grant, rule: grantOrigin(grant) });
        } catch (error) {
          report(error);
        }
      }
    },
    active,
    current: async () => active(),
    add,
    async addStored(rule, by, expiresInMs, uses) {
      const grant = add(rule, by, expiresInMs, uses);
      await saving;
      return grant;
    },
    take(used) {
      // Checked and counted in one turn of the event loop (no await before the last line), so
      // two calls of this process can never both take a grant's last use.
      const t = now();
      const ids = [...new Set(used.map((g) => g.id))];
      const refused = ids.filter((id) => {
        const held = grants.find((g) => g.grant.id === id);
        return held === undefined || !grantInForce(held.grant, t);
      });
      if (refused.length > 0) return Promise.resolve({ refused });
      let changed = false;
      grants = grants.flatMap((g) => {
        if (!ids.includes(g.grant.id) || g.grant.usesLeft === undefined) return [g];
        changed = true;
        const left = g.grant.usesLeft - 1;
        return left <= 0 ? [] : [{ ...g, grant: { ...g.grant, usesLeft: left } }];
      });
      if (changed) void persist();
      return Promise.resolve({ refused: [] });
    },
    list: async () => active().map((g) => g.grant),
    async revoke(id) {
      const before = grants.length;
      grants = grants.filter((g) => g.grant.id !== id);
      if (grants.length === before) return false;
      await persist();
      return true;
    },
    saved: () => saving,
  };
}

/** The store's failure, saying what it means for calls. */
const unavailable = (what: string, error: unknown): GrantStoreError =>
  new GrantStoreError(
    `The shared grant store could not ${what} (${error instanceof Error ? error.message : String(error)}); its grants do not apply to this call (fail closed). Check the store; calls are asked or denied as without them until it answers.`,
    { cause: error },
  );

/**
 * A book over a shared store: the store decides. Its grants are read before every decision and
 * a decision's uses are spent in the store before the call runs; this book's copy only saves
 * reading each rule again, and holds its own adds until the store has them.
 */
function createSharedGrantBook(
  store: SharedGrantStore,
  now: () => number,
  report: (error: unknown) => void,
): GrantBook {
  let known: ActiveGrant[] = [];
  const pending = new Map<string, Promise<unknown>>();
  // Expiry is the store's to judge (by its clock: replicas' clocks may disagree); a grant that
  // expired since it was listed is refused when spent.
  const inForce = () => known.filter((g) => g.grant.usesLeft !== 0);
  /** The store's list, each rule read once per grant; a grant that cannot be read is skipped. */
  const refresh = async () => {
    const listed = await store.list();
    const byId = new Map(known.map((g) => [g.grant.id, g]));
    const fresh: ActiveGrant[] = [];
    for (const grant of listed) {
      const held = byId.get(grant.id);
      try {
        fresh.push({
          grant,
          rule: held?.grant.rule === grant.rule ? held.rule : grantOrigin(grant),
        });
      } catch (error) {
        report(error);
      }
    }
    const ids = new Set(fresh.map((g) => g.grant.id));
    // An add still on its way is kept: the list may have been read before the store had it.
    known = [...fresh, ...known.filter((g) => pending.has(g.grant.id) && !ids.has(g.grant.id))];
    return inForce();
  };
  const write = (made: ActiveGrant): Promise<PermissionGrant> => {
    const id = made.grant.id;
    known = [...known, made];
    const done = store.add(made.grant).then(
      (stored) => {
        known = known.map((g) => (g.grant.id === id ? { grant: stored, rule: g.rule } : g));
        return stored;
      },
      (error: unknown) => {
        known = known.filter((g) => g.grant.id !== id);
        throw unavailable(`store the grant ${id} (${made.grant.rule})`, error);
      },
    );
    pending.set(
      id,
      done.then(
        () => pending.delete(id),
        () => pending.delete(id),
      ),
    );
    return done;
  };
  return {
    shared: true,
    async load() {
      await refresh();
    },
    active: inForce,
    async current() {
      try {
        return await refresh();
      } catch (error) {
        report(unavailable('list the grants', error));
        return [];
      }
    },
    add(rule, by, expiresInMs, uses, question) {
      const made = madeGrant({ rule, by, expiresInMs, uses, now: now(), question });
      write(made).catch(report);
      return made.grant;
    },
    addStored: (rule, by, expiresInMs, uses) =>
      write(madeGrant({ rule, by, expiresInMs, uses, now: now() })),
    async take(used) {
      const ids = [...new Set(used.map((g) => g.id))];
      if (ids.length === 0) return { refused: [] };
      // A grant given a moment ago is spent only once the store has acknowledged it.
      await Promise.all(ids.map((id) => pending.get(id)));
      let result: Awaited<ReturnType<SharedGrantStore['spend']>>;
      try {
        result = await store.spend(ids);
      } catch (error) {
        report(unavailable(`spend a use of ${ids.join(', ')}`, error));
        return { unavailable: true };
      }
      if (!result.spent) {
        // A store that refuses without naming one of these grants refuses them all: the caller
        // decides again without what was refused, and must always have less to try.
        const named = result.refused.filter((id) => ids.includes(id));
        const refused = named.length > 0 ? named : ids;
        known = known.filter((g) => !refused.includes(g.grant.id));
        return { refused };
      }
      known = known.flatMap((g) => {
        const left = g.grant.usesLeft;
        if (!ids.includes(g.grant.id) || left === undefined) return [g];
        return left <= 1 ? [] : [{ ...g, grant: { ...g.grant, usesLeft: left - 1 } }];
      });
      return { refused: [] };
    },
    list: async () => (await refresh()).map((g) => g.grant),
    async revoke(id) {
      const existed = await store.revoke(id);
      known = known.filter((g) => g.grant.id !== id);
      return existed;
    },
    saved: async () => {
      await Promise.all(pending.values());
    },
  };
}

/**
 * Keeps the grant a person gave with an allow: under the approver's rule, else the default one.
 * A grant that cannot be kept is reported, never thrown: the person allowed this call, and a grant
 * only affects later calls.
 */
export function keepApprovedGrant(
  book: GrantBook,
  exec: InterceptedExecution,
  decision: PermissionDecision,
  given: ApprovalGrant,
  where: { readonly cwd: string; readonly home: string },
  report: (error: unknown) => void,
): void {
  try {
    const rule = given.rule ?? defaultGrantRule(exec, decision, where.cwd, where.home);
    if (rule === undefined) {
      report(
        new Error(
          `Grant for tool "${exec.name}" not stored: the command is compound or not fully understood, so it was allowed once.`,
        ),
      );
      return;
    }
    const asked = ruleText(decision);
    book.add(rule, 'approver', given.expiresInMs, given.uses, {
      callId: exec.callId,
      tool: exec.name,
      reason: decision.reason,
      ...(asked !== undefined && { rule: asked }),
    });
  } catch (error) {
    report(error);
  }
}
