/**
 * The grant book's edges that no other test pinned: what a grant must be to be added, when it
 * stops applying, and what is saved when it does. Each test fails under a one-line change the
 * mutation run (`pnpm mutate:permission`) found surviving in grants/book.ts.
 */
import { describe, expect, it } from 'vitest';
import { bash, makeProject } from '../../test/helpers';
import { modelCall, registryWith } from '../../test/registry';
import {
  createMemoryGrantStore,
  type GrantStore,
  type PermissionGrant,
  PermissionRuleError,
  permissionInterceptor,
} from '../index';

const { root, home } = makeProject();

/** A memory store that also keeps every list it was given to save. */
const recordingStore = (initial: readonly PermissionGrant[] = []) => {
  const inner = createMemoryGrantStore(initial);
  const saves: (readonly PermissionGrant[])[] = [];
  const store: GrantStore = {
    load: () => inner.load(),
    save: async (grants) => {
      saves.push(grants);
      await inner.save(grants);
    },
  };
  return { store, saves };
};

const origin = { by: 'test', at: 0 };
/** Lets the book's background save (started by a call) finish. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('adding a grant', () => {
  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])(
    'expiresInMs %s is refused, naming the value',
    async (expiresInMs) => {
      const policy = permissionInterceptor({ cwd: root, home });
      const adding = policy.addGrant({ rule: 'Bash(ls)', expiresInMs });
      await expect(adding).rejects.toThrow(PermissionRuleError);
      await expect(adding).rejects.toThrow(`expiresInMs must be a number > 0 (got ${expiresInMs})`);
    },
  );

  it.each([0, -1, 1.5])('uses %s is refused, naming the value', async (uses) => {
    const policy = permissionInterceptor({ cwd: root, home });
    await expect(policy.addGrant({ rule: 'Bash(ls)', uses })).rejects.toThrow(
      `uses must be a whole number > 0 (got ${uses})`,
    );
  });

  it('the smallest expiry and use count are accepted', async () => {
    const policy = permissionInterceptor({ cwd: root, home, now: () => 0 });
    const grant = await policy.addGrant({ rule: 'Bash(ls)', expiresInMs: 1, uses: 1 });
    expect(grant).toMatchObject({ expiresAt: 1, usesLeft: 1 });
  });
});

describe('revoking a grant', () => {
  it('removes that grant only', async () => {
    const policy = permissionInterceptor({ cwd: root, home });
    const keep = await policy.addGrant({ rule: 'Bash(ls)' });
    const gone = await policy.addGrant({ rule: 'Bash(echo:*)' });
    expect(await policy.revokeGrant(gone.id)).toBe(true);
    expect(await policy.listGrants()).toEqual([keep]);
    expect(await policy.revokeGrant(gone.id)).toBe(false);
  });
});

describe('loading grants', () => {
  it('a stored grant whose rule does not parse is reported and left out; the others load', async () => {
    const good = { id: 'g', rule: 'Bash(ls)', origin };
    const errors: unknown[] = [];
    const policy = permissionInterceptor({
      cwd: root,
      home,
      grants: createMemoryGrantStore([{ id: 'b', rule: 'Bash(ls', origin }, good]),
      onError: (error) => errors.push(error),
    });
    expect(await policy.listGrants()).toEqual([good]);
    expect(errors).toEqual([expect.any(PermissionRuleError)]);
  });
});

describe('a grant in force', () => {
  it('a stored grant with no uses left applies to nothing', async () => {
    const used = { id: 'u', rule: 'Bash(echo:*)', usesLeft: 0, origin };
    const policy = permissionInterceptor({
      cwd: root,
      home,
      grants: createMemoryGrantStore([used]),
    });
    expect(await policy.listGrants()).toEqual([]);
    expect((await policy.explain(bash('echo hi'))).behavior).toBe('ask');
  });

  it('an expired grant is dropped from the store; nothing is saved while none expires', async () => {
    let t = 0;
    const { store, saves } = recordingStore();
    const policy = permissionInterceptor({ cwd: root, home, grants: store, now: () => t });
    const grant = await policy.addGrant({ rule: 'Bash(echo:*)', expiresInMs: 1000 });
    const afterAdd = saves.length;
    expect(await policy.listGrants()).toEqual([grant]);
    expect((await policy.explain(bash('echo hi'))).behavior).toBe('allow');
    expect(saves.length).toBe(afterAdd);
    t = 1000;
    expect(await policy.listGrants()).toEqual([]);
    await policy.listGrants();
    expect(saves.at(-1)).toEqual([]);
    expect(saves.length).toBe(afterAdd + 1);
  });

  it('each use counts down and is saved; the last one removes the grant; others keep theirs', async () => {
    const { store, saves } = recordingStore();
    const policy = permissionInterceptor({ cwd: root, home, grants: store });
    const registry = registryWith(policy, root);
    const other = await policy.addGrant({ rule: 'Bash(ls:*)', uses: 3 });
    await policy.addGrant({ rule: 'Bash(echo:*)', uses: 2 });
    expect((await registry.execute(modelCall('Bash', { command: 'echo a' }))).isError).toBe(false);
    await settled();
    expect(saves.at(-1)).toEqual([other, expect.objectContaining({ usesLeft: 1 })]);
    expect(await policy.listGrants()).toEqual([other, expect.objectContaining({ usesLeft: 1 })]);
    expect((await registry.execute(modelCall('Bash', { command: 'echo b' }))).isError).toBe(false);
    await settled();
    expect(saves.at(-1)).toEqual([other]);
    expect(await policy.listGrants()).toEqual([other]);
    const third = await registry.execute(modelCall('Bash', { command: 'echo c' }));
    expect(third.error?.code).toBe('DENIED');
  });

  it('a grant without a use count is not used up, and using it saves nothing', async () => {
    const { store, saves } = recordingStore();
    const policy = permissionInterceptor({ cwd: root, home, grants: store });
    const registry = registryWith(policy, root);
    const grant = await policy.addGrant({ rule: 'Bash(echo:*)' });
    expect(Object.keys(grant).sort()).toEqual(['id', 'origin', 'rule']);
    const afterAdd = saves.length;
    for (const word of ['a', 'b', 'c'])
      expect((await registry.execute(modelCall('Bash', { command: `echo ${word}` }))).isError).toBe(
        false,
      );
    expect(await policy.listGrants()).toEqual([grant]);
    expect(saves.length).toBe(afterAdd);
  });
});
