/**
 * Shells and sudo that read their commands from the terminal or standard input
 * (shell/unwrap.ts): under an allow rule for the program itself they still ask, since what they
 * will run cannot be checked. Each case fails under a one-line change the mutation run
 * (`pnpm mutate:permission`) found surviving in unwrap.ts.
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
    rules: { allow: ['Bash(sudo:*)', 'Bash(bash:*)', 'Bash(echo:*)'], deny: ['Bash(rm:*)'] },
  });
  await policy.ready;
});
const behaviorOf = async (line: string) => (await policy.explain(bash(line))).behavior;

describe('an interactive or standard-input shell asks', () => {
  it.each([
    'sudo -i',
    'sudo -s',
    'sudo --shell',
    'sudo --login',
    'sudo -Es',
    'sudo -u root -i',
    'bash -s',
    'bash -i',
    'bash -o posix -s',
    'bash -O extglob -i',
    'bash',
    'bash --norc -s',
    'bash -s x y',
    'bash -i script.sh',
  ])('%s', async (line) => {
    expect(await behaviorOf(line)).toBe('ask');
  });

  it.each([
    'sudo rm -rf src',
    'sudo -u root rm -rf src',
    'bash -c "rm -rf src"',
    'bash -xc "rm -rf src"',
  ])('%s runs rm: denied', async (line) => {
    expect(await behaviorOf(line)).toBe('deny');
  });
});
