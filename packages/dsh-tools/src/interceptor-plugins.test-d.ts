import type { Context, Fiber } from '@deepseek-ai/cordis';
import type { HooksInterceptorOptions } from '@dsh-tools/interceptors-hooks';
import type {
  PermissionDecision,
  PermissionGrant,
  PermissionMode,
  PermissionOptions,
} from '@dsh-tools/interceptors-permission';
import type { SandboxOptions } from '@dsh-tools/interceptors-sandbox';
import { describe, expectTypeOf, it } from 'vitest';
import { Hooks, INTERCEPTOR_PRIORITY, Permission, Sandbox } from './cordis';

declare const ctx: Context;

describe('the interceptor plugins’ typing', () => {
  it('take the factories’ options as their config', () => {
    expectTypeOf(Sandbox.apply).parameter(1).toEqualTypeOf<SandboxOptions>();
    expectTypeOf(Hooks.apply).parameter(1).toEqualTypeOf<HooksInterceptorOptions>();
    expectTypeOf<ConstructorParameters<typeof Permission>[1]>().toEqualTypeOf<
      PermissionOptions | undefined
    >();
    expectTypeOf(ctx.plugin(Sandbox, { mode: 'read-only' })).toEqualTypeOf<
      Fiber & PromiseLike<Fiber>
    >();
    ctx.plugin(Hooks, { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [] }] } });
    ctx.plugin(Permission, { rules: { deny: ['Bash(rm:*)'] }, mode: 'plan' });
    ctx.plugin(Permission);
  });

  it('refuse configs the factories refuse', () => {
    // @ts-expect-error the sandbox needs a mode
    ctx.plugin(Sandbox, {});
    // @ts-expect-error not a sandbox mode
    ctx.plugin(Sandbox, { mode: 'everything' });
    // @ts-expect-error hooks need their `hooks` block
    ctx.plugin(Hooks, { cwd: '/' });
    // @ts-expect-error not a permission mode
    ctx.plugin(Permission, { mode: 'yolo' });
  });

  it('types ctx.permission as the policy’s controls', () => {
    expectTypeOf(ctx.permission).toEqualTypeOf<Permission>();
    expectTypeOf(ctx.permission.mode).toEqualTypeOf<PermissionMode>();
    expectTypeOf(ctx.permission.setMode).parameter(0).toEqualTypeOf<PermissionMode>();
    expectTypeOf(ctx.permission.explain).returns.toEqualTypeOf<Promise<PermissionDecision>>();
    expectTypeOf(ctx.permission.listGrants).returns.toEqualTypeOf<
      Promise<readonly PermissionGrant[]>
    >();
    expectTypeOf(ctx.permission.addGrant).returns.toEqualTypeOf<Promise<PermissionGrant>>();
    expectTypeOf(ctx.permission.revokeGrant).returns.toEqualTypeOf<Promise<boolean>>();
  });

  it('documents the priorities as literal numbers', () => {
    expectTypeOf(INTERCEPTOR_PRIORITY.hooks).toEqualTypeOf<-100>();
    expectTypeOf(INTERCEPTOR_PRIORITY.sandbox).toEqualTypeOf<-200>();
    expectTypeOf(INTERCEPTOR_PRIORITY.permission).toEqualTypeOf<-300>();
  });
});
