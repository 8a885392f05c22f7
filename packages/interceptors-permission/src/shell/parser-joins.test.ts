import { describe, expect, it } from 'vitest';
import { bash, makeProject } from '../../test/helpers';
import { permissionInterceptor } from '../index';

// The parser joins `.env ``rm` (an empty backquoted substitution after a blank) into one word
// that bash splits in two: read as the literal file ".env``rm", `cat .env ``rm` was allowed under
// a `Read(./.env)` deny (found by the property "garbage around a denied command never makes it
// allowed", seed 1040762974). A word whose parts leave a gap, or that holds a backquote, is not
// known before it runs.
describe('words the parser joins but bash splits', () => {
  it('are never read as one literal file', async () => {
    const { root, home } = makeProject();
    const policy = permissionInterceptor({
      cwd: root,
      home,
      rules: { allow: ['Bash(cat:*)', 'Bash(npm test:*)'], deny: ['Read(./.env)'] },
    });
    await policy.ready;
    for (const line of [
      'cat .env ``rm',
      'npm test; cat .env ``rm',
      'cat .env ``x``y',
      'cat ``.env',
    ]) {
      const decision = await policy.explain(bash(line));
      expect(decision.behavior, `${line}: ${decision.reason}`).not.toBe('allow');
    }
    // A plain file after an empty substitution on its own is judged as before.
    expect((await policy.explain(bash('cat .env ``'))).behavior).toBe('deny');
    expect((await policy.explain(bash('cat README.md'))).behavior).toBe('allow');
  });
});
