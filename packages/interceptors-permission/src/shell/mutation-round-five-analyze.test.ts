// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell words, not templates
/**
 * The fifth round's test for shell/analyze.ts: a substitution inside a default value counts as a
 * level of nesting. It fails under the one-line change that survived the mutation runs
 * (`pnpm mutate:permission`), listed in docs/permission-mutation.md.
 */
import { describe, expect, it } from 'vitest';
import { bash, makeProject } from '../../test/helpers';
import { permissionInterceptor } from '../index';
import { MAX_DEPTH } from './analyze';

const { root, home } = makeProject();
const nestBashC = (line: string, levels: number): string => {
  let out = line;
  for (let i = 0; i < levels; i++) out = `bash -c '${out.replaceAll("'", `'\\''`)}'`;
  return out;
};

describe('a backtick inside ${x:-…} is one level deeper', () => {
  it(`is followed up to ${MAX_DEPTH} levels in all, and asked past them`, async () => {
    const policy = permissionInterceptor({
      cwd: root,
      home,
      rules: { allow: ['Bash(echo:*)', 'Bash(touch:*)'] },
    });
    await policy.ready;
    const line = 'echo ${x:-`touch ok`}';
    // Inside MAX_DEPTH - 1 levels of bash -c, the backtick is the last level read.
    const within = await policy.explain(bash(nestBashC(line, MAX_DEPTH - 1)));
    expect(within.behavior).toBe('allow');
    // One level more and the backtick is past the limit. Were the substitution not counted as a
    // level, it would be read and allowed like the line above, at any depth.
    const past = await policy.explain(bash(nestBashC(line, MAX_DEPTH)));
    expect(past.behavior).toBe('ask');
    expect(past.reason).toContain(`commands nested more than ${MAX_DEPTH} levels deep`);
  });
});
