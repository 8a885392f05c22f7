import type { Approver, InterceptedExecution, Interceptor } from '@dsh-tools/protocol';
import { describe, expectTypeOf, it } from 'vitest';
import {
  type ClaudeSettings,
  createJsonFileGrantStore,
  createMemoryGrantStore,
  createMemorySharedGrantStore,
  createPermissionGrant,
  type GrantSpend,
  type GrantStore,
  loadClaudeSettings,
  type PermissionDecision,
  type PermissionGrant,
  type PermissionInterceptor,
  type PermissionMode,
  type PermissionOptions,
  permissionInterceptor,
  type SharedGrantStore,
  type TrailEntry,
} from './index';

describe('public types', () => {
  it('the factory returns an Interceptor with host controls', () => {
    const p = permissionInterceptor({});
    expectTypeOf(p).toEqualTypeOf<PermissionInterceptor>();
    expectTypeOf(p).toExtend<Interceptor>();
    expectTypeOf(p.mode).toEqualTypeOf<PermissionMode>();
    expectTypeOf(p.setMode).parameter(0).toEqualTypeOf<PermissionMode>();
    expectTypeOf(p.explain).parameter(0).toEqualTypeOf<InterceptedExecution>();
    expectTypeOf(p.explain).returns.toEqualTypeOf<Promise<PermissionDecision>>();
    expectTypeOf(p.listGrants).returns.toEqualTypeOf<Promise<readonly PermissionGrant[]>>();
    expectTypeOf(p.revokeGrant).returns.toEqualTypeOf<Promise<boolean>>();
    expectTypeOf(p.ready).toEqualTypeOf<Promise<void>>();
  });

  it('modes are a closed union', () => {
    expectTypeOf<PermissionMode>().toEqualTypeOf<
      'default' | 'acceptEdits' | 'plan' | 'dontAsk' | 'bypassPermissions'
    >();
    // @ts-expect-error: not a mode
    permissionInterceptor({ mode: 'auto' });
  });

  it('approve takes the protocol Approver, so hooks and permission share one function', () => {
    expectTypeOf<PermissionOptions['approve']>().toEqualTypeOf<Approver | undefined>();
  });

  it('the settings loader output spreads into the options', async () => {
    const settings = await loadClaudeSettings();
    expectTypeOf(settings).toEqualTypeOf<ClaudeSettings>();
    permissionInterceptor({ ...settings, approve: () => ({ kind: 'allow' }) });
  });

  it('stores implement GrantStore', () => {
    expectTypeOf(createMemoryGrantStore()).toEqualTypeOf<GrantStore>();
    expectTypeOf(createJsonFileGrantStore('/tmp/x.json')).toEqualTypeOf<GrantStore>();
  });

  it('a shared store spends atomically, and either kind of store is accepted', () => {
    expectTypeOf(createMemorySharedGrantStore()).toEqualTypeOf<SharedGrantStore>();
    expectTypeOf<SharedGrantStore['spend']>().returns.toEqualTypeOf<Promise<GrantSpend>>();
    expectTypeOf<Extract<GrantSpend, { spent: false }>['refused']>().toEqualTypeOf<
      readonly string[]
    >();
    expectTypeOf<PermissionOptions['grants']>().toEqualTypeOf<
      GrantStore | SharedGrantStore | undefined
    >();
    expectTypeOf(
      createPermissionGrant({ rule: 'Bash(ls)', by: 'operator' }),
    ).toEqualTypeOf<PermissionGrant>();
    // @ts-expect-error: a use count is a number
    createPermissionGrant({ rule: 'Bash(ls)', by: 'operator', uses: '3' });
  });

  it('decisions say what decided them and carry a discriminated trail', () => {
    expectTypeOf<PermissionDecision['behavior']>().toEqualTypeOf<'allow' | 'ask' | 'deny'>();
    expectTypeOf<PermissionDecision['decidedBy']['kind']>().toEqualTypeOf<
      'rule' | 'grant' | 'mode' | 'unparsed' | 'policy'
    >();
    expectTypeOf<TrailEntry['kind']>().toEqualTypeOf<
      'rule' | 'grant' | 'path' | 'shell' | 'mode' | 'approval'
    >();
    expectTypeOf<Extract<TrailEntry, { kind: 'rule' }>['matched']>().toEqualTypeOf<
      boolean | 'maybe'
    >();
  });

  it('rules accept plain lists or sourced sets, readonly', () => {
    permissionInterceptor({ rules: { allow: ['Bash(ls:*)'] as const } });
    permissionInterceptor({ rules: [{ source: 'team', file: '/x.json', deny: ['Read(./.env)'] }] });
    // @ts-expect-error: a rule is a string
    permissionInterceptor({ rules: { allow: [1] } });
  });
});
