/**
 * The tables of shell/names.ts a wrapper is seen through with (the shells whose `-c` runs a line,
 * the options of each wrapper that take a value) and the variables a command may be given without
 * asking. Each case fails when its entry is dropped from a table, which the mutation run
 * (`pnpm mutate:permission`) tries one entry at a time.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { bash, makeProject } from '../../test/helpers';
import { type PermissionInterceptor, permissionInterceptor } from '../index';
import type { PermissionDecision } from '../types';

let policy: PermissionInterceptor;
beforeAll(async () => {
  const { root, home } = makeProject();
  policy = permissionInterceptor({
    cwd: root,
    home,
    rules: { allow: ['Bash(echo:*)'], deny: ['Bash(rm:*)'] },
  });
  await policy.ready;
});
const explain = (line: string): Promise<PermissionDecision> => policy.explain(bash(line));

describe('every shell runs the line of its -c', () => {
  it.each(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish', 'yash', 'posh', 'rbash'])(
    "%s -c 'rm -rf src' is denied by the rm rule",
    async (shell) => {
      expect((await explain(`${shell} -c 'rm -rf src'`)).behavior).toBe('deny');
    },
  );
});

// Each wrapper option that takes a value, with a value that is not a program: were the option read
// as a flag, the value would be taken for the command and the call would only ask.
const VALUED: readonly (readonly [string, readonly string[], string])[] = [
  ['env', ['-u', '--unset'], ''],
  ['timeout', ['-s', '--signal', '-k', '--kill-after'], '5 '],
  ['nice', ['-n', '--adjustment'], ''],
  ['stdbuf', ['-i', '-o', '-e', '--input', '--output', '--error'], ''],
  ['ionice', ['-c', '-n', '-p', '-P', '-u', '--class', '--classdata'], ''],
  ['time', ['-f', '-o', '--format', '--output'], ''],
  ['exec', ['-a'], ''],
  [
    'sudo',
    [
      '-u',
      '-g',
      '-h',
      '-p',
      '-C',
      '-D',
      '-r',
      '-t',
      '-U',
      '-T',
      '--user',
      '--group',
      '--host',
      '--prompt',
      '--chdir',
      '--role',
      '--type',
      '--other-user',
      '--close-from',
      '--command-timeout',
    ],
    '',
  ],
  ['doas', ['-u', '-C'], ''],
  [
    'xargs',
    [
      '-a',
      '-d',
      '-E',
      '-I',
      '-L',
      '-n',
      '-P',
      '-s',
      '--arg-file',
      '--delimiter',
      '--eof',
      '--replace',
      '--max-lines',
      '--max-args',
      '--max-procs',
      '--max-chars',
      '--process-slot-var',
    ],
    '',
  ],
  ['flock', ['-w', '--timeout', '-E', '--conflict-exit-code'], 'x.lock '],
  ['watch', ['-n', '--interval', '-q', '--equexit'], ''],
];

describe('a wrapper option that takes a value does not hide the command after it', () => {
  it.each(VALUED.flatMap(([wrapper, options, before]) => options.map((o) => [wrapper, o, before])))(
    '%s %s v … rm -rf src is denied',
    async (wrapper, option, before) => {
      const line = `${wrapper} ${option} v1 ${before}rm -rf src`;
      expect((await explain(line)).behavior, line).toBe('deny');
    },
  );

  it.each(['--userspec', '--groups'])('chroot %s v names the new root, not v', async (option) => {
    const d = await explain(`chroot ${option} v1 /newroot rm -rf src`);
    expect(d.behavior).toBe('ask');
    expect(d.reason).toContain('chroot runs its command under another root (/newroot)');
  });
});

describe('the variables a command may be given', () => {
  it.each([
    'CI',
    'NODE_ENV',
    'DEBUG',
    'LANG',
    'LANGUAGE',
    'TZ',
    'TERM',
    'NO_COLOR',
    'FORCE_COLOR',
    'CLICOLOR',
    'CLICOLOR_FORCE',
    'COLUMNS',
    'LINES',
    'RUST_BACKTRACE',
    'RUST_LOG',
    'LOG_LEVEL',
    'VERBOSE',
    'TIMING',
    'SKIP_ENV_VALIDATION',
  ])('%s=1 echo hi runs without a question', async (name) => {
    expect((await explain(`${name}=1 echo hi`)).behavior).toBe('allow');
  });
});

describe('a plain shell variable whose name holds a dangerous prefix inside it', () => {
  it('passes: only a name that starts with one is read by a program', async () => {
    expect((await explain('my_npm_config_note=1; echo hi')).behavior).toBe('allow');
  });
});
