/**
 * A hook's `ask` goes through the policy kit's approver loop (`askApprover`), the one the
 * permission interceptor is meant to share. What the move changed, pinned: an approver answering
 * the string "timeout" or "aborted" was taken for the loop's own timeout or abort (the call then
 * said no answer came, or that it was aborted, when the approver had answered); it is a malformed
 * answer, named as such.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bashHook, decisionJson, makeTempDir, pre, setup } from '../test/helpers';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir());
});
afterEach(async () => {
  await cleanup();
});

describe('the approver loop', () => {
  it.each(['timeout', 'aborted'])(
    'an approver answering the string %j is malformed, not the loop ending',
    async (answer) => {
      const hook = await bashHook(dir, 'ask.sh', `echo '${decisionJson('ask', 'sure?')}'`);
      const { call, bodyCalls } = setup(
        { PreToolUse: [pre('Bash', hook)] },
        { cwd: dir, approveTimeoutMs: 60_000, approve: () => answer as never },
      );
      const result = await call('Bash', { command: 'x' });
      expect(result.error?.code).toBe('DENIED');
      expect(result.error?.message).toContain(
        `the approver answered "${answer}" instead of { kind: "allow" }`,
      );
      expect(bodyCalls).toEqual([]);
    },
  );
});
