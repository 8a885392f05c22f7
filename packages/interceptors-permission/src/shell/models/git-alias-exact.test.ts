/**
 * A git alias is replaced by what it stands for, and its own name goes: `git -c alias.p=push p`
 * runs `git push`, so an exact deny rule `Bash(git push)` meets it. Were the alias's name kept
 * (a mutant of round seven, `git.ts`), the words would read `git push p`, which the exact rule does
 * not name, and the deny would become an ask.
 */
import { describe, expect, it } from 'vitest';
import { filePolicy, makeProject } from '../../../test/helpers';

const { root, home } = makeProject();
const { explain } = filePolicy({
  cwd: root,
  home,
  rules: { allow: ['Bash(git:*)'], deny: ['Bash(git push)', 'Bash(git log --all)'] },
});

describe("an alias's name does not stay among the words it stands for", () => {
  it.each(['git -c alias.p=push p', "git -c alias.p='push' p", "git -c 'alias.l=log --all' l"])(
    '%s meets the exact deny rule',
    async (line) => {
      const decision = await explain(line);
      expect(decision.behavior, decision.reason).toBe('deny');
    },
  );
});
