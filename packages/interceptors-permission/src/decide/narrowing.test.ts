import { describe, expect, it } from 'vitest';
import { permissionInterceptor } from '../index';
import { narrowableSandbox, sandboxNarrowing, toSandboxGlobs } from './narrowing';
import { readOptions } from './options';

const policyOf = (rules: { allow?: string[]; deny?: string[]; ask?: string[] }) =>
  readOptions({ cwd: '/w', home: '/h', rules }).policy;

describe('toSandboxGlobs: the sandbox dialect, never narrower than the rule', () => {
  it.each([
    // A path, a plain tail: as they are (the glob's own text is the same glob).
    ['/w/.env', ['/w/.env']],
    ['/w/secrets/**', ['/w/secrets/**']],
    ['/w/a**b/c', ['/w/**/c']],
    ['/w/**/*.pem', ['/w/**/*.pem']],
    // `?` is one UTF-16 unit to picomatch (half an emoji): `*` in the sandbox.
    ['/w/key?.pem', ['/w/key*.pem']],
    // Brace lists written out, and the glob's own text as a name (picomatch matches it first).
    ['/w/{a,b}/x', ['/w/a/x', '/w/b/x', '/w/*a,b*/x']],
    ['/w/**/*.{pem,key}', ['/w/**/*.pem', '/w/**/*.key', '/w/**/*.*pem,key*']],
    // A component starting with `~` (home to the sandbox) starts with `*`.
    ['/w/~$*.docx', ['/w/*$*.docx']],
    // Anything else: everything below the literal prefix. A class may hold `/`, a range or a
    // POSIX class makes picomatch's literal dots match `/`, `|` alternates the whole pattern, an
    // escaped letter is a regular-expression class, quotes quote, `+` after a group repeats it.
    ['/w/[ab].txt', ['/w/**']],
    ['/w/@(x|y)', ['/w/**']],
    ['/w/k{1..3}.txt', ['/w/**']],
    ['/w/logs/app{1..3,old}.log', ['/w/logs/**']],
    ['/w/{1..2,w}', ['/w/**']],
    ['/w/{a}', ['/w/**']],
    ['/w/{x,{y,z}}', ['/w/**']],
    ['/w/{.,sub}/secret', ['/w/**']],
    ['/w/a|/w/b', ['/w/**']],
    ['/w/[[:digit:]].txt', ['/w/**']],
    ['/w/a\\Wb/c', ['/w/**']],
    ['/w/**/"My Keys"/*', ['/w/**']],
    ['/w/{a,b}+', ['/w/**']],
    ['/w/x/***/y', ['/w/x/**']],
  ])('%s', (glob, expected) => {
    expect(toSandboxGlobs(glob)).toEqual(expected);
  });

  it('writes out at most 64 globs; more braces widen instead of growing', () => {
    expect(toSandboxGlobs(`/w/${'{a,b}'.repeat(6)}`)).toHaveLength(65);
    expect(toSandboxGlobs(`/w/${'{a,b}'.repeat(7)}`)).toEqual(['/w/**']);
    expect(toSandboxGlobs(`/w/${'{a,b}'.repeat(17)}`)).toEqual(['/w/**']);
  });
});

describe('sandboxNarrowing', () => {
  it('Read denies narrow reads, Edit/Write denies narrow writes, each also for what is inside', () => {
    const n = sandboxNarrowing(
      policyOf({ deny: ['Read(./.env)', 'Read(./secrets/**)', 'Edit(./src/**)', 'Write(/out)'] }),
    );
    expect(n.denyRead).toEqual(['/w/.env', '/w/.env/**', '/w/secrets/**']);
    expect(n.denyWrite).toEqual(expect.arrayContaining(['/w/src/**']));
    expect(n.denyWrite).not.toContain('/w/.env');
  });
  it('allow and ask rules take nothing away', () => {
    const n = sandboxNarrowing(policyOf({ allow: ['Read(./x)'], ask: ['Edit(./y)'] }));
    expect(n.denyRead).toEqual([]);
    expect(n.denyWrite).toEqual([]);
  });
  it.each([
    [{}, false],
    [{ deny: ['Bash(curl:*)'] }, false],
    [{ allow: ['Bash(curl:*)'] }, true],
    [{ allow: ['WebFetch'] }, true],
    [{ allow: ['Bash(git push:*)'] }, true],
    [{ allow: ['Bash(git diff:*)'] }, false],
    [{ allow: ['Bash(npm install:*)'] }, true],
    [{ allow: ['Bash(npm test:*)'] }, false],
  ])('the network with rules %j stays: %s', (rules, keeps) => {
    expect(sandboxNarrowing(policyOf(rules)).network).toBe(keeps ? undefined : false);
  });
  it('finds a narrowable sandbox only where one is', () => {
    const narrow = () => ({ narrow });
    expect(narrowableSandbox({ sandbox: { narrow } })).toBeDefined();
    expect(narrowableSandbox({ sandbox: { run: () => 0 } })).toBeUndefined();
    expect(narrowableSandbox({})).toBeUndefined();
  });
  it('a sandbox that cannot take the rules denies the call (fail closed)', async () => {
    const permission = permissionInterceptor({ cwd: '/w', rules: { allow: ['Bash(echo:*)'] } });
    await permission.ready;
    let ran = false;
    const sandbox = {
      narrow() {
        throw new TypeError('sandbox.narrow "denyRead[0]" cannot be enforced');
      },
    };
    const r = await permission(
      {
        callId: '1',
        name: 'bash',
        arguments: { command: 'echo hi' },
        tool: {
          name: 'bash',
          description: '',
          parameters: { type: 'object' },
          hints: { command: 'command' },
          source: { kind: 'local' },
        },
        sandbox,
      } as never,
      async () => {
        ran = true;
        return { callId: '1', content: [], isError: false };
      },
    );
    expect(ran).toBe(false);
    expect(r.error?.code).toBe('DENIED');
    expect(r.error?.message).toMatch(/sandbox cannot enforce the permission rules.*fail closed/);
  });
});
