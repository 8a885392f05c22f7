/**
 * Which environment assignments pass without asking, and program names given with a path: each
 * test fails under a one-line change the mutation run (`pnpm mutate:permission`) found surviving
 * in shell/names.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { bash, makeProject } from '../../test/helpers';
import { type PermissionInterceptor, permissionInterceptor } from '../index';

let policy: PermissionInterceptor;
beforeAll(async () => {
  const { root, home } = makeProject();
  policy = permissionInterceptor({
    cwd: root,
    home,
    rules: { allow: ['Bash(cat:*)', 'Bash(echo:*)', 'Bash(npm test:*)'], deny: ['Bash(rm:*)'] },
  });
  await policy.ready;
});
const behaviorOf = async (line: string) => (await policy.explain(bash(line))).behavior;

describe('an assignment given to a command', () => {
  it.each(['LC_ALL=C cat README.md', 'LC_MESSAGES=C cat README.md', 'TZ=UTC cat README.md'])(
    '%s: locale and display variables pass',
    async (line) => {
      expect(await behaviorOf(line)).toBe('allow');
    },
  );

  it.each([
    'XLC_ALL=C cat README.md',
    'LC_ALL1=C cat README.md',
    'LC_all=C cat README.md',
    'foo=1 cat README.md',
    'npm_config_node_options=--require=./x.js npm test',
  ])('%s: anything else asks', async (line) => {
    expect(await behaviorOf(line)).toBe('ask');
  });
});

describe('a plain shell variable', () => {
  it.each(['x=1; echo "$x"', 'no_proxy_list=a; echo hi', 'my_var2=a; echo hi'])(
    '%s: a lower-case name no program reads passes',
    async (line) => {
      expect(await behaviorOf(line)).toBe('allow');
    },
  );

  it.each([
    // An upper-case name may already be exported, so setting it changes later commands.
    'FOO=1; echo hi',
    'xFOO=1; echo hi',
    'Foo=1; echo hi',
    'http_proxy=http://evil; echo hi',
    'npm_config_node_options=--require=./x.js; npm test',
  ])('%s: asks', async (line) => {
    expect(await behaviorOf(line)).toBe('ask');
  });
});

describe('a program named with its directory', () => {
  it.each(['/rm x', '/bin/rm x', './rm x'])('%s is judged by its base name', async (line) => {
    expect(await behaviorOf(line)).toBe('deny');
  });
});
