import { describe, expect, it } from 'vitest';
import { permissionInterceptor } from '../index';
import { narrowableSandbox, sandboxNarrowing, toSandboxGlobs } from './narrowing';
import { readOptions } from './options';

const policyOf = (rules: { allow?: string[]; deny?: string[]; ask?: string[] }) =>
  readOptions({ cwd: '/w', home: '/h', rules }).policy;

describe('toSandboxGlobs: the sandbox dialect, never narrower than the rule', () => {
  // The last glob of each is the glob's own text as a name (picomatch matches that path too).
  it.each([
    ['/w/.env', ['/w/.env']],
    ['/w/secrets/**', ['/w/secrets/**']],
    ['/w/{a,b}/x', ['/w/a/x', '/w/b/x', '/w/?a,b?/x']],
    ['/w/[ab].txt', ['/w/?.txt', '/w/?ab?.txt']],
    ['/w/@(x|y)', ['/w/*', '/w/@?x?y?']],
    ['/w/a**b/c', ['/w/**/c']],
    // A range is names picomatch counts, which no member spells; a lone member is read either way.
    ['/w/k{1..3}.txt', ['/w/k*.txt', '/w/k?1..3?.txt']],
    ['/w/{1..2,w}', ['/w/*', '/w/?1..2,w?']],
    ['/w/{a}', ['/w/*', '/w/?a?']],
    ['/w/{x,{y,z}}', ['/w/x', '/w/y', '/w/z', '/w/?x,?y,z??']],
    // A `|` outside a group alternates the whole pattern; a POSIX class is one character; an
    // escaped letter is a regular expression class (`\\W` matches `/`): its component is `**`.
    ['/w/a|/w/b', ['/w/a', '/w/b', '/w/a?/w/b']],
    ['/w/[[:digit:]].txt', ['/w/?.txt', '/w/??:digit:??.txt']],
    ['/w/a\\Wb/c', ['/w/**/c', '/w/a?Wb/c']],
    ['/w/a\\*b', ['/w/a?b', '/w/a?*b']],
    ['/w/x@(a/b|c)y/z', ['/w/**/z', '/w/x@?a/b?c?y/z']],
  ])('%s', (glob, expected) => {
    expect(toSandboxGlobs(glob)).toEqual(expected);
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
