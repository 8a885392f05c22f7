import type { Approver, Interceptor } from '@dsh-tools/protocol';
import { describe, expectTypeOf, it } from 'vitest';
import {
  compileMatcher,
  type HookDecision,
  type HookDenialDetails,
  type HookFeedbackMeta,
  type HookRunRecord,
  type HooksConfig,
  type HooksConfigSource,
  type HooksInterceptorOptions,
  hooksInterceptor,
  loadClaudeCodeHooks,
  mergeDecisions,
} from './index';

describe('public types', () => {
  it('hooksInterceptor returns an Interceptor; approve is the protocol Approver', () => {
    expectTypeOf(hooksInterceptor).returns.toEqualTypeOf<Interceptor>();
    expectTypeOf<HooksInterceptorOptions['approve']>().toEqualTypeOf<Approver | undefined>();
    expectTypeOf<HooksInterceptorOptions['onHookRun']>().toEqualTypeOf<
      ((record: HookRunRecord) => void) | undefined
    >();
  });

  it('accepts a Claude Code settings hooks block written as a literal', () => {
    const hooks = {
      PreToolUse: [
        { matcher: 'Bash', hooks: [{ type: 'command', command: 'guard.sh', timeout: 30 }] },
      ],
      PostToolUse: [{ hooks: [{ type: 'command', command: 'fmt.sh', onError: 'block' }] }],
      Stop: [{ hooks: [{ type: 'command', command: 'ignored' }] }],
    } as const satisfies HooksConfig;
    expectTypeOf(hooksInterceptor).toBeCallableWith({ hooks });
    expectTypeOf(hooksInterceptor).toBeCallableWith({ hooks: [{ source: 'x', hooks }] });
  });

  it('rejects malformed hooks at compile time', () => {
    // @ts-expect-error type must be "command"
    const bad: HooksConfig = { PreToolUse: [{ hooks: [{ type: 'prompt', command: 'x' }] }] };
    void bad;
    const bad2: HooksConfig = {
      // @ts-expect-error onError is "block" | "allow"
      PreToolUse: [{ hooks: [{ type: 'command', command: 'x', onError: 'ignore' }] }],
    };
    void bad2;
    // @ts-expect-error hooks is required
    hooksInterceptor({ cwd: '/' });
  });

  it('the loader returns sources the interceptor takes', () => {
    expectTypeOf(loadClaudeCodeHooks).returns.resolves.toEqualTypeOf<HooksConfigSource[]>();
    expectTypeOf<HooksConfigSource[]>().toExtend<HooksInterceptorOptions['hooks']>();
  });

  it('records and details are typed', () => {
    expectTypeOf<HookRunRecord['decision']>().toEqualTypeOf<HookDecision>();
    expectTypeOf<HookRunRecord['hook']['event']>().toEqualTypeOf<'PreToolUse' | 'PostToolUse'>();
    expectTypeOf<HookDenialDetails['hooks']>().toEqualTypeOf<readonly HookRunRecord[]>();
    expectTypeOf<HookDenialDetails['reason']>().toEqualTypeOf<
      'deny' | 'ask' | 'conflict' | 'block' | 'aborted'
    >();
    expectTypeOf<HookFeedbackMeta['kind']>().toEqualTypeOf<'context' | 'block'>();
    expectTypeOf(mergeDecisions).returns.toEqualTypeOf<HookDecision>();
    expectTypeOf(compileMatcher).returns.toEqualTypeOf<(toolName: string) => boolean>();
  });
});
