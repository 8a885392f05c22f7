/**
 * The fifth round's tests for decide/options.ts: which options a permission interceptor takes.
 * Each test fails under a one-line change that survived the mutation runs
 * (`pnpm mutate:permission`), listed in docs/permission-mutation.md.
 */
import { describe, expect, it } from 'vitest';
import { bash, makeProject } from '../../test/helpers';
import { type PermissionOptions, PermissionRuleError, permissionInterceptor } from '../index';

const { root, home } = makeProject();

describe('the options of a permission interceptor', () => {
  it('null is refused with the error that says what options must be', () => {
    // Were null let through (typeof null is 'object'), reading its cwd would throw a TypeError
    // that names no option.
    for (const options of [null, 'x', 1]) {
      expect(() => permissionInterceptor(options as unknown as PermissionOptions)).toThrow(
        new PermissionRuleError('permissionInterceptor: options must be an object.'),
      );
    }
  });

  it('approveTimeoutMs and parseCacheSize may be 0, and the interceptor decides', async () => {
    // Both are documented as ">= 0"; were 0 refused, these options would throw.
    const policy = permissionInterceptor({
      cwd: root,
      home,
      rules: { allow: ['Bash(ls:*)'] },
      approveTimeoutMs: 0,
      parseCacheSize: 0,
    });
    await policy.ready;
    expect((await policy.explain(bash('ls'))).behavior).toBe('allow');
    expect((await policy.explain(bash('ls'))).behavior).toBe('allow');
    for (const bad of [{ approveTimeoutMs: -1 }, { parseCacheSize: -1 }])
      expect(() => permissionInterceptor({ cwd: root, home, ...bad })).toThrow(PermissionRuleError);
  });
});
