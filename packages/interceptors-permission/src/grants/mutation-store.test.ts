/**
 * The grant store's checks and failures, and keeping an approver's grant (store.ts, rules.ts):
 * each test fails under a one-line change the mutation run (`pnpm mutate:permission`) found
 * without coverage there.
 */
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bash, makeProject } from '../../test/helpers';
import { permissionInterceptor } from '../index';
import { createGrantBook } from './book';
import { keepApprovedGrant } from './rules';
import {
  createJsonFileGrantStore,
  createMemoryGrantStore,
  GrantStoreError,
  grantProblem,
} from './store';

const origin = { by: 't', at: 0 };

describe('a stored grant', () => {
  it.each([
    [{ rule: 'Bash(ls)', origin }, 'has no string "id"'],
    [{ id: '', rule: 'Bash(ls)', origin }, 'has no string "id"'],
    [{ id: 'g', origin }, 'has no string "rule"'],
    [{ id: 'g', rule: '', origin }, 'has no string "rule"'],
    [{ id: 'g', rule: 'Bash(ls)', expiresAt: 'soon', origin }, 'has a non-numeric "expiresAt"'],
    [
      { id: 'g', rule: 'Bash(ls)', usesLeft: -1, origin },
      'has a "usesLeft" that is not a whole number >= 0',
    ],
    [
      { id: 'g', rule: 'Bash(ls)', usesLeft: 0.5, origin },
      'has a "usesLeft" that is not a whole number >= 0',
    ],
  ])('%j %s', (grant, problem) => {
    expect(grantProblem(grant)).toBe(problem);
  });

  it('a whole one has no problem', () => {
    expect(
      grantProblem({ id: 'g', rule: 'Bash(ls)', usesLeft: 0, expiresAt: 1, origin }),
    ).toBeUndefined();
  });
});

describe('the JSON file store', () => {
  const dir = () => mkdtempSync(join(tmpdir(), 'perm-store-'));

  it('a file it cannot read (a directory) is an error naming it, not "no grants"', async () => {
    const file = join(dir(), 'grants.json');
    mkdirSync(file);
    const loading = createJsonFileGrantStore(file).load();
    await expect(loading).rejects.toThrow(GrantStoreError);
    await expect(loading).rejects.toThrow(`Grant store ${file} cannot be read: `);
    await expect(loading).rejects.toMatchObject({ cause: { code: 'EISDIR' } });
  });

  it('a save that cannot replace the file removes its temporary file and fails', async () => {
    const d = dir();
    const file = join(d, 'grants.json');
    mkdirSync(file);
    writeFileSync(join(file, 'inside'), 'x');
    await expect(createJsonFileGrantStore(file).save([])).rejects.toThrow();
    expect(readdirSync(d)).toEqual(['grants.json']);
  });
});

describe("keeping an approver's grant", () => {
  const { root, home } = makeProject();
  const decisionFor = async (line: string) => {
    const policy = permissionInterceptor({ cwd: root, home });
    await policy.ready;
    return policy.explain(bash(line));
  };

  it('a compound command is allowed once and the grant reported as not stored', async () => {
    const errors: unknown[] = [];
    const book = createGrantBook(
      createMemoryGrantStore(),
      () => 0,
      (e) => errors.push(e),
    );
    const line = 'ls && rm x';
    keepApprovedGrant(book, bash(line), await decisionFor(line), {}, { cwd: root, home }, (e) =>
      errors.push(e),
    );
    expect(book.active()).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toContain(
      'Grant for tool "Bash" not stored: the command is compound or not fully understood, so it was allowed once.',
    );
  });

  it('a single command is kept as exactly that command, its special characters escaped', async () => {
    const book = createGrantBook(createMemoryGrantStore(), () => 0, () => undefined);
    const line = "ls 'a b' 'c(d)'";
    keepApprovedGrant(book, bash(line), await decisionFor(line), {}, { cwd: root, home }, () => {
      throw new Error('not reported');
    });
    expect(book.active().map((g) => g.grant.rule)).toEqual(['Bash(ls a\\ b c\\(d\\))']);
  });

  it('a grant the book refuses is reported, never thrown', async () => {
    const errors: unknown[] = [];
    const book = createGrantBook(
      createMemoryGrantStore(),
      () => 0,
      () => undefined,
    );
    const run = () =>
      keepApprovedGrant(book, bash('ls'), decision, { rule: 'Bash(' }, { cwd: root, home }, (e) =>
        errors.push(e),
      );
    const decision = await decisionFor('ls');
    expect(run).not.toThrow();
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toContain('Bash(');
  });
});
