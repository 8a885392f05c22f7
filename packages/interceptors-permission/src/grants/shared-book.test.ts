/**
 * Grants in a store several policies share (a gateway's replicas): each policy reads the store
 * before deciding and spends a counted grant there before the call runs, so a use is never spent
 * twice, and a store that fails leaves its grants out (fail closed).
 */
import type { InterceptedExecution, ToolExecutionResult } from '@dsh-tools/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bash, makeProject, propertySeed, read } from '../../test/helpers';
import {
  createMemorySharedGrantStore,
  createPermissionGrant,
  GrantStoreError,
  type PermissionGrant,
  type PermissionInterceptor,
  permissionInterceptor,
  type SharedGrantStore,
} from '../index';

/** One seed for the races here, printed so that a failure replays (`FC_SEED=<seed>`). */
const SEED = propertySeed('shared grant races');

const { root, home } = makeProject();

/** A policy on `store` that denies what would ask (no approver), reporting into `errors`. */
async function replica(
  store: SharedGrantStore,
  extra: { errors?: unknown[]; now?: () => number } = {},
): Promise<PermissionInterceptor> {
  const policy = permissionInterceptor({
    cwd: root,
    home,
    grants: store,
    ...(extra.now && { now: extra.now }),
    onError: (error) => extra.errors?.push(error),
  });
  await policy.ready;
  return policy;
}

/** Runs `exec` through `policy`: `ran` when the body was reached, else the refusal's code. */
async function outcome(policy: PermissionInterceptor, exec: InterceptedExecution) {
  let ran = false;
  const result = await policy(exec, async (e?: InterceptedExecution) => {
    ran = true;
    return { callId: (e ?? exec).callId, content: [], isError: false } as ToolExecutionResult;
  });
  return ran ? 'ran' : (result.error?.code ?? 'no error code');
}

const NPM_TEST = bash('npm test');

describe('grants in a shared store', () => {
  it('a grant added through one policy is used by another, and its uses are counted across both', async () => {
    const store = createMemorySharedGrantStore();
    const a = await replica(store);
    const b = await replica(store);
    expect(await outcome(b, NPM_TEST)).toBe('DENIED');
    await a.addGrant({ rule: 'Bash(npm test)', uses: 2 });
    expect(await outcome(b, NPM_TEST)).toBe('ran');
    expect((await a.listGrants())[0]?.usesLeft).toBe(1);
    expect(await outcome(a, NPM_TEST)).toBe('ran');
    expect(await outcome(b, NPM_TEST)).toBe('DENIED');
    expect(await outcome(a, NPM_TEST)).toBe('DENIED');
    expect(await store.list()).toEqual([]);
  });

  it('a revoke through one policy is seen by the other at its next call', async () => {
    const store = createMemorySharedGrantStore();
    const a = await replica(store);
    const b = await replica(store);
    const grant = await a.addGrant({ rule: 'Bash(npm test)' });
    expect(await outcome(b, NPM_TEST)).toBe('ran');
    expect(await b.revokeGrant(grant.id)).toBe(true);
    expect(await outcome(a, NPM_TEST)).toBe('DENIED');
    expect(await a.revokeGrant(grant.id)).toBe(false);
  });

  it('a grant revoked between the decision and the spend is not used (decided again without it)', async () => {
    const base = createMemorySharedGrantStore();
    const grant = createPermissionGrant({ rule: 'Bash(npm test)', by: 'test' });
    await base.add(grant);
    // Once armed, the store lists the grant, then it is revoked elsewhere before this policy spends it.
    let armed = false;
    const store: SharedGrantStore = {
      ...base,
      list: async () => {
        const listed = await base.list();
        if (armed) await base.revoke(grant.id);
        return listed;
      },
    };
    const policy = await replica(store);
    expect((await policy.explain(NPM_TEST)).behavior).toBe('allow');
    armed = true;
    expect(await outcome(policy, NPM_TEST)).toBe('DENIED');
    expect(await base.list()).toEqual([]);
  });

  it('a grant an approver gives goes to the store and is used by another policy', async () => {
    const store = createMemorySharedGrantStore();
    const asking = permissionInterceptor({
      cwd: root,
      home,
      grants: store,
      approve: async () => ({ kind: 'allow', grant: { uses: 1 } }),
    });
    await asking.ready;
    expect(await outcome(asking, NPM_TEST)).toBe('ran');
    const other = await replica(store);
    expect(await outcome(other, NPM_TEST)).toBe('ran');
    expect(await outcome(other, NPM_TEST)).toBe('DENIED');
  });

  it('a grant used up elsewhere leaves the call to another grant that covers it', async () => {
    const store = createMemorySharedGrantStore();
    const a = await replica(store);
    const b = await replica(store);
    await a.addGrant({ rule: 'Bash(npm test)', uses: 1 });
    await a.addGrant({ rule: 'Bash(npm:*)', uses: 1 });
    // b's copy is read now; a takes a use meanwhile.
    expect((await b.explain(NPM_TEST)).behavior).toBe('allow');
    expect(await outcome(a, NPM_TEST)).toBe('ran');
    expect(await outcome(b, NPM_TEST)).toBe('ran');
    expect(await outcome(b, NPM_TEST)).toBe('DENIED');
  });

  it("expiry is the store's to judge: a policy whose clock lags or runs ahead follows the store's clock", async () => {
    let storeClock = 1_000;
    const store = createMemorySharedGrantStore([], () => storeClock);
    const lagging = await replica(store, { now: () => 1_000 });
    const ahead = await replica(store, { now: () => 1_000_000 });
    await lagging.addGrant({ rule: 'Bash(npm test)', expiresInMs: 500 });
    expect(await outcome(ahead, NPM_TEST)).toBe('ran');
    storeClock = 1_500;
    expect(await outcome(lagging, NPM_TEST)).toBe('DENIED');
    expect(await outcome(ahead, NPM_TEST)).toBe('DENIED');
  });

  it('explain does not spend a use', async () => {
    const store = createMemorySharedGrantStore();
    const policy = await replica(store);
    await policy.addGrant({ rule: 'Bash(npm test)', uses: 1 });
    expect((await policy.explain(NPM_TEST)).behavior).toBe('allow');
    expect((await policy.explain(NPM_TEST)).behavior).toBe('allow');
    expect(await outcome(policy, NPM_TEST)).toBe('ran');
  });
});

describe('the last use raced between policies', () => {
  it('two policies on one store calling at once: exactly one spends the last use', async () => {
    for (let round = 0; round < 50; round++) {
      const store = createMemorySharedGrantStore();
      const a = await replica(store);
      const b = await replica(store);
      await a.addGrant({ rule: 'Bash(npm test)', uses: 1 });
      // Both read the grant before either spends it.
      expect((await a.explain(NPM_TEST)).behavior).toBe('allow');
      expect((await b.explain(NPM_TEST)).behavior).toBe('allow');
      const outcomes = await Promise.all([outcome(a, NPM_TEST), outcome(b, NPM_TEST)]);
      expect(outcomes.sort()).toEqual(['DENIED', 'ran']);
    }
  });

  it('n policies, k uses, m calls in any order: exactly min(k, m) calls run (seeded)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 4 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 10 }),
        async (n, k, picks) => {
          const store = createMemorySharedGrantStore();
          const policies = await Promise.all(Array.from({ length: n }, () => replica(store)));
          await policies[0]?.addGrant({ rule: 'Bash(npm test)', uses: k });
          const outcomes = await Promise.all(
            picks.map((p) => outcome(policies[p % n] as PermissionInterceptor, NPM_TEST)),
          );
          expect(outcomes.filter((o) => o === 'ran')).toHaveLength(Math.min(k, picks.length));
          expect(await store.list()).toHaveLength(k > picks.length ? 1 : 0);
        },
      ),
      { seed: SEED, numRuns: 60 },
    );
  });
});

describe('a shared store that fails', () => {
  const failing = (
    base: SharedGrantStore,
    fail: Partial<Record<keyof SharedGrantStore, boolean>>,
  ): SharedGrantStore => {
    const down = async () => {
      throw new Error('connection refused');
    };
    return {
      list: fail.list ? down : () => base.list(),
      add: fail.add ? down : (g) => base.add(g),
      spend: fail.spend ? down : (ids) => base.spend(ids),
      revoke: fail.revoke ? down : (id) => base.revoke(id),
    };
  };
  const withGrant = async () => {
    const base = createMemorySharedGrantStore();
    await base.add(createPermissionGrant({ rule: 'Bash(npm test)', by: 'test', uses: 3 }));
    return base;
  };

  it('cannot spend: the grant does not apply, the call is decided as without it, and the problem is reported', async () => {
    const base = await withGrant();
    const errors: unknown[] = [];
    const policy = await replica(failing(base, { spend: true }), { errors });
    expect(await outcome(policy, NPM_TEST)).toBe('DENIED');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(GrantStoreError);
    expect(String(errors[0])).toMatch(/could not spend a use of .*connection refused.*fail closed/);
    expect((await base.list())[0]?.usesLeft).toBe(3);
    // A call no grant covers is untouched by the store's state.
    expect(await outcome(policy, read('src/a.ts'))).toBe('ran');
  });

  it('cannot list: no grant applies, reported; it works again when the store is back', async () => {
    const base = await withGrant();
    const errors: unknown[] = [];
    let down = true;
    const store: SharedGrantStore = {
      ...failing(base, {}),
      list: () => (down ? Promise.reject(new Error('timed out')) : base.list()),
    };
    const policy = await replica(store, { errors });
    expect(await outcome(policy, NPM_TEST)).toBe('DENIED');
    await expect(policy.listGrants()).rejects.toThrow('timed out');
    expect(String(errors.at(-1))).toContain('could not list the grants (timed out)');
    down = false;
    expect(await outcome(policy, NPM_TEST)).toBe('ran');
  });

  it('cannot add: addGrant rejects, and the grant is not used', async () => {
    const errors: unknown[] = [];
    const policy = await replica(failing(createMemorySharedGrantStore(), { add: true }), {
      errors,
    });
    await expect(policy.addGrant({ rule: 'Bash(npm test)' })).rejects.toThrow(
      /could not store the grant .* \(Bash\(npm test\)\) \(connection refused\)/,
    );
    expect(await outcome(policy, NPM_TEST)).toBe('DENIED');
    await expect(policy.revokeGrant('x')).resolves.toBe(false);
  });

  it('cannot revoke: revokeGrant rejects', async () => {
    const policy = await replica(failing(await withGrant(), { revoke: true }));
    await expect(policy.revokeGrant('x')).rejects.toThrow('connection refused');
  });

  it('refuses without naming the grant: taken as refused, never an endless retry', async () => {
    const base = await withGrant();
    const store: SharedGrantStore = {
      ...failing(base, {}),
      spend: async () => ({ spent: false, refused: ['some-other-grant'] }),
    };
    const policy = await replica(store);
    expect(await outcome(policy, NPM_TEST)).toBe('DENIED');
  });

  it('a grant whose stored rule cannot be read is reported and skipped, the others still apply', async () => {
    const base = createMemorySharedGrantStore();
    const bad: PermissionGrant = { id: 'bad', rule: 'Bash(', origin: { by: 't', at: 0 } };
    await base.add(bad);
    await base.add(createPermissionGrant({ rule: 'Bash(npm test)', by: 'test' }));
    const errors: unknown[] = [];
    const policy = await replica(base, { errors });
    expect(await outcome(policy, NPM_TEST)).toBe('ran');
    expect(String(errors[0])).toContain('grant bad');
  });
});
