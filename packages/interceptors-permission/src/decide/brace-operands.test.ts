/**
 * An operand with braces is judged as the words bash gives the program. As one glob,
 * `{x,secrets/key}` names neither `x` nor `secrets/key` (its `/` is inside the braces), so
 * `cat {x,secrets/key}` was allowed under a `Read(./secrets/**)` deny, and printed the key.
 */
import { describe, expect, it } from 'vitest';
import { filePolicy, makeProject } from '../../test/helpers';

const { root, home } = makeProject();
const { explain } = filePolicy({
  cwd: root,
  home,
  rules: {
    allow: ['Bash(cat:*)', 'Bash(head:*)', 'Bash(cp:*)', 'Bash(iconv:*)', 'Bash(wc:*)'],
    deny: ['Read(./.env)', 'Read(./secrets/**)', 'Edit(./src/**)'],
  },
});

describe('braces in a file operand', () => {
  it.each([
    ['cat {x,secrets/key}', 'Read(./secrets/**)'],
    ['cat {README.md,.env}', 'Read(./.env)'],
    ['head -n1 {x,y,secrets/key}', 'Read(./secrets/**)'],
    ['cat x{,/../secrets/key}', 'Read(./secrets/**)'],
    ['wc -l {a,{b,secrets/key}}', 'Read(./secrets/**)'],
    ['cp README.md {x,src/a.ts}', 'Edit(./src/**)'],
    ['iconv -o{x,src/a.ts} README.md', 'Edit(./src/**)'],
    // One word from braces, not the word as written: judged as that word, not as a glob.
    ['cat secrets/ke{y..y}', 'Read(./secrets/**)'],
  ])('%s is denied by %s', async (line, rule) => {
    const decision = await explain(line);
    expect(decision.behavior, decision.reason).toBe('deny');
    expect(decision.reason).toContain(rule);
  });

  it('keeps the worst verdict of the words, whatever their order', async () => {
    for (const line of ['cat {s*,README.md}', 'cat {README.md,s*}']) {
      const decision = await explain(line);
      expect(decision.behavior, `${line}: ${decision.reason}`).toBe('ask');
      expect(decision.reason).toContain('could match a path rule Read(./secrets/**)');
    }
    for (const line of ['cat {s*,secrets/key}', 'cat {secrets/key,s*}']) {
      const decision = await explain(line);
      expect(decision.behavior, `${line}: ${decision.reason}`).toBe('deny');
    }
  });

  it('judges braces that do not expand as the glob they are part of', async () => {
    const decision = await explain('cat secrets/{x}*');
    expect(decision.behavior, decision.reason).toBe('ask');
    expect(decision.reason).toContain('could match a path rule Read(./secrets/**)');
  });

  it('asks when the braces make too many words to judge', async () => {
    const decision = await explain('cat x{1..100000}');
    expect(decision.behavior).toBe('ask');
    expect(decision.reason).toContain('make more than 256 words');
  });

  it.each([
    'cat {README,README}.md',
    'wc -l {a,b}.txt',
    'cat x{1..3}',
    // A group that does not expand is a plain word: `{..a}secrets/key` is no path of secrets/.
    'cat {x}',
    'cat {..a}{x,secrets/key}',
    // Braces that do not expand, beside a glob: judged once, as the glob.
    'cat {x}*',
    // Empty words are dropped, as bash drops them: no operand is read for them.
    'cat {,} README.md',
  ])('%s stays allowed', async (line) => {
    const decision = await explain(line);
    expect(decision.behavior, decision.reason).toBe('allow');
  });
});
