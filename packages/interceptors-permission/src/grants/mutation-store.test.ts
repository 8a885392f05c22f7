/**
 * The grant store's checks and failures, and keeping an approver's grant (store.ts, rules.ts):
 * each test fails under a one-line change the mutation run (`pnpm mutate:permission`) found
 * without coverage there.
 */
import { mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BASH_HINTS, bash, call, makeProject, read } from '../../test/helpers';
import { permissionInterceptor } from '../index';
import { createGrantBook, keepApprovedGrant } from './book';
import { defaultGrantRule } from './rules';
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

  it.each([
    [null, 'is not an object'],
    [[], 'is not an object'],
    [
      { id: 'g', rule: 'Bash(ls)', expiresAt: Number.POSITIVE_INFINITY, origin },
      'has a non-numeric "expiresAt"',
    ],
    [{ id: 'g', rule: 'Bash(ls)' }, 'has no "origin" with "by" (string) and "at" (number)'],
    [
      { id: 'g', rule: 'Bash(ls)', origin: { at: 0 } },
      'has no "origin" with "by" (string) and "at" (number)',
    ],
    [
      { id: 'g', rule: 'Bash(ls)', origin: { by: 't', at: Number.NaN } },
      'has no "origin" with "by" (string) and "at" (number)',
    ],
    [
      { id: 'g', rule: 'Bash(ls)', origin: { by: 't' } },
      'has no "origin" with "by" (string) and "at" (number)',
    ],
  ])('%j: %s', (grant, problem) => {
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

  it('keeps what it saved, readable by its owner only; the memory store keeps a copy', async () => {
    const file = join(dir(), 'sub', 'grants.json');
    const grant = { id: 'g', rule: 'Bash(ls)', origin };
    await createJsonFileGrantStore(file).save([grant]);
    expect(await createJsonFileGrantStore(file).load()).toEqual([grant]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const memory = createMemoryGrantStore();
    const list = [grant];
    await memory.save(list);
    list.pop();
    expect(await memory.load()).toEqual([grant]);
  });

  it('a corrupt file keeps its cause, and a save over it fails with that cause', async () => {
    const file = join(dir(), 'grants.json');
    writeFileSync(file, '{ not json');
    const store = createJsonFileGrantStore(file);
    const loading = store.load();
    await expect(loading).rejects.toMatchObject({
      name: 'GrantStoreError',
      cause: expect.any(SyntaxError),
    });
    const corrupt = await loading.catch((e: unknown) => e);
    await expect(store.save([])).rejects.toMatchObject({ cause: corrupt });
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

describe('the rule a grant without one covers', () => {
  const { root, home } = makeProject();
  const ruleFor = async (
    rules: { ask?: string[]; deny?: string[] },
    exec: ReturnType<typeof bash>,
  ) => {
    const policy = permissionInterceptor({ cwd: root, home, rules });
    await policy.ready;
    return defaultGrantRule(exec, await policy.explain(exec), root, home);
  };

  it('the asking rule, when an ask rule asked', async () => {
    expect(await ruleFor({ ask: ['Bash(git push:*)'] }, bash('git push'))).toBe('Bash(git push:*)');
  });

  it('else exactly the command, or the tool for a tool without a command', async () => {
    expect(await ruleFor({}, bash('git push'))).toBe('Bash(git push)');
    expect(await ruleFor({ deny: ['Bash(rm:*)'] }, bash('rm x'))).toBe('Bash(rm x)');
    expect(await ruleFor({}, read('x'))).toBe('Read');
    expect(await ruleFor({}, call('Bash', { command: 5 }, BASH_HINTS))).toBeUndefined();
  });

  it.each(['ls; pwd', 'ls > x', 'timeout 5 ls', 'ls $x', 'ls *', 'ls "$(', ''])(
    'nothing for %j (compound, redirected, wrapped, not literal, or not understood)',
    async (line) => {
      expect(await ruleFor({}, bash(line))).toBeUndefined();
    },
  );
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
    const book = createGrantBook(
      createMemoryGrantStore(),
      () => 0,
      () => undefined,
    );
    const line = "ls 'a b' 'c(d)'";
    keepApprovedGrant(book, bash(line), await decisionFor(line), {}, { cwd: root, home }, () => {
      throw new Error('not reported');
    });
    expect(book.active().map((g) => g.grant.rule)).toEqual(['Bash(ls a\\ b c\\(d\\))']);
    expect(Object.keys(book.active()[0]?.grant.origin.question ?? {})).not.toContain('rule');
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
    expect(String(errors[0])).toMatch(
      /Permission rule "Bash\(" in grant [0-9a-f-]{36}, allow\[0\] opens "\(" but does not end with "\)"/,
    );
  });
});
