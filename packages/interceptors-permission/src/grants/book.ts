import { randomUUID } from 'node:crypto';
import type { ActiveGrant } from '../decide/policy';
import { PermissionRuleError } from '../decide/rules';
import type { GrantStore, PermissionGrant } from '../types';
import { grantOrigin } from './rules';

/** The grants a policy holds: loaded from a store, expired and used up as the clock and calls go. */
export interface GrantBook {
  /** Reads the store; a grant that cannot be read is reported and skipped. Rejects when the store does. */
  load(): Promise<void>;
  /** Grants still in force now (neither expired nor used up); drops the others and saves. */
  active(): ActiveGrant[];
  /** Adds a grant; throws a {@link PermissionRuleError} on a malformed rule, expiry or use count. */
  add(
    rule: string,
    by: string,
    expiresInMs: number | undefined,
    uses: number | undefined,
    question?: PermissionGrant['origin']['question'],
  ): PermissionGrant;
  /** Counts one use of each grant a call relied on. */
  consume(used: readonly PermissionGrant[]): void;
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

/** Keeps the grants of one interceptor, persisting every change to `store` in order. */
export function createGrantBook(
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
  return {
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
    active() {
      const t = now();
      const live = grants.filter((g) => grantInForce(g.grant, t));
      if (live.length !== grants.length) {
        grants = live;
        void persist();
      }
      return live;
    },
    add(rule, by, expiresInMs, uses, question) {
      if (expiresInMs !== undefined && !(Number.isFinite(expiresInMs) && expiresInMs > 0)) {
        throw new PermissionRuleError(
          `A grant's expiresInMs must be a number > 0 (got ${expiresInMs}).`,
        );
      }
      if (uses !== undefined && !(Number.isInteger(uses) && uses > 0)) {
        throw new PermissionRuleError(`A grant's uses must be a whole number > 0 (got ${uses}).`);
      }
      const at = now();
      const grant: PermissionGrant = {
        id: randomUUID(),
        rule,
        ...(expiresInMs !== undefined && { expiresAt: at + expiresInMs }),
        ...(uses !== undefined && { usesLeft: uses }),
        origin: { by, at, ...(question && { question }) },
      };
      const parsed = grantOrigin(grant);
      grants = [...grants, { grant, rule: parsed }];
      void persist();
      return grant;
    },
    consume(used) {
      if (used.length === 0) return;
      let changed = false;
      grants = grants.flatMap((g) => {
        if (!used.includes(g.grant) || g.grant.usesLeft === undefined) return [g];
        changed = true;
        const left = g.grant.usesLeft - 1;
        return left <= 0 ? [] : [{ ...g, grant: { ...g.grant, usesLeft: left } }];
      });
      if (changed) void persist();
    },
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
