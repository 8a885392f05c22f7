import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { bash, makeProject } from '../test/helpers';
import { createJsonFileGrantStore, GrantStoreError, permissionInterceptor } from './index';

const dir = () => mkdtempSync(join(tmpdir(), 'grants-'));

describe('createJsonFileGrantStore', () => {
  it('persists grants across interceptors, with their origin, atomically (no temp files left)', async () => {
    const { root, home } = makeProject();
    const d = dir();
    const file = join(d, 'grants.json');
    const first = permissionInterceptor({
      cwd: root,
      home,
      grants: createJsonFileGrantStore(file),
    });
    const grant = await first.addGrant({
      rule: 'Bash(npm test:*)',
      expiresInMs: 3_600_000,
      uses: 5,
    });
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    expect(stored).toEqual({ version: 1, grants: [grant] });
    expect(readdirSync(d)).toEqual(['grants.json']);
    const second = permissionInterceptor({
      cwd: root,
      home,
      grants: createJsonFileGrantStore(file),
    });
    expect(await second.listGrants()).toEqual([grant]);
    expect((await second.explain(bash('npm test'))).behavior).toBe('allow');
    expect(await second.revokeGrant(grant.id)).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8')).grants).toEqual([]);
  });

  it('a missing file is no grants', async () => {
    await expect(createJsonFileGrantStore(join(dir(), 'none.json')).load()).resolves.toEqual([]);
  });

  it.each([
    ['not JSON', '{"grants": [', /is not valid JSON/],
    ['no grants array', '{"version":1}', /has no "grants" array/],
    [
      'a malformed grant',
      '{"grants":[{"id":"x","rule":"Bash","origin":{}}]}',
      /grants\[0\] has no "origin"/,
    ],
    [
      'a negative use count',
      '{"grants":[{"id":"x","rule":"Bash","usesLeft":-1,"origin":{"by":"a","at":1}}]}',
      /usesLeft/,
    ],
  ])('a file with %s is reported, never emptied or overwritten', async (_, text, message) => {
    const { root, home } = makeProject();
    const file = join(dir(), 'grants.json');
    writeFileSync(file, text);
    const onError = vi.fn();
    const policy = permissionInterceptor({
      cwd: root,
      home,
      grants: createJsonFileGrantStore(file),
      onError,
    });
    await policy.ready;
    expect(onError).toHaveBeenCalledWith(expect.any(GrantStoreError));
    expect(String(onError.mock.calls[0]?.[0].message)).toMatch(message);
    expect(String(onError.mock.calls[0]?.[0].message)).toContain(file);
    await expect(policy.listGrants()).rejects.toThrow(message);
    // The policy still decides; a new grant works in memory but is not saved over the file.
    await policy.addGrant({ rule: 'Bash(ls)' });
    expect((await policy.explain(bash('ls'))).behavior).toBe('allow');
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(onError).toHaveBeenCalledWith(
      expect.objectContaining({ message: expect.stringContaining('not saving over it') }),
    );
  });
});
