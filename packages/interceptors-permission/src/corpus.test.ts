import { beforeAll, describe, expect, test } from 'vitest';
import { BENIGN, BYPASS, CORPUS_RULES } from '../test/corpus';
import { bash, edit, makeProject, read } from '../test/helpers';
import { type PermissionInterceptor, permissionInterceptor } from './index';

let policy: PermissionInterceptor;
beforeAll(async () => {
  const { root, home } = makeProject();
  policy = permissionInterceptor({ cwd: root, home, rules: CORPUS_RULES });
  await policy.ready;
});

const build = { bash, read, edit } as const;

describe(`bypass corpus (${BYPASS.length} shapes): denied or asked, never allowed`, () => {
  test('has at least 80 shapes with unique names', () => {
    expect(BYPASS.length).toBeGreaterThanOrEqual(80);
    expect(new Set(BYPASS.map(([name]) => name)).size).toBe(BYPASS.length);
  });
  test.each(BYPASS)('%s (%s %j) → %s', async (_name, tool, input, expected) => {
    const decision = await policy.explain(build[tool](input));
    expect(decision.behavior, decision.reason).not.toBe('allow');
    expect(decision.behavior, decision.reason).toBe(expected);
  });
});

describe(`benign corpus (${BENIGN.length} commands): allowed by matching allow rules`, () => {
  test('has at least 40 commands with unique names', () => {
    expect(BENIGN.length).toBeGreaterThanOrEqual(40);
    expect(new Set(BENIGN.map(([name]) => name)).size).toBe(BENIGN.length);
  });
  test.each(BENIGN)('%s: %j', async (_name, command) => {
    const decision = await policy.explain(bash(command));
    expect(decision.behavior, decision.reason).toBe('allow');
  });
});
