/**
 * `runner.narrow()`: a narrowing adds deny globs and takes the network away, for the narrowed
 * runner only, and refuses anything it cannot enforce with a TypeError that says what. Written
 * where a mutation run found no test noticing a change to narrow.ts.
 */
import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanUpAfterTests, makeTree, needsBwrap, SKIP_BWRAP, type Tree } from '../test/fixtures';
import { createSandboxRunner, type SandboxNarrowing, type SandboxOptions } from './index';

cleanUpAfterTests();

let t: Tree;
beforeAll(async () => {
  t = await makeTree();
  await writeFile(`${t.ws}/plain.txt`, 'plain-content-5e2a\n');
});
afterAll(() => t.cleanup());

const runner = (extra: Partial<SandboxOptions> = {}) =>
  createSandboxRunner({ mode: 'workspace-write', cwd: t.ws, ...extra });

describe('narrow() refuses what it cannot enforce, naming the caller and the field', () => {
  const refuses = (narrowing: unknown, message: RegExp) =>
    expect(() => runner().narrow(narrowing as SandboxNarrowing)).toThrow(message);

  it.each([
    [null, /^sandbox runner: sandbox\.narrow takes an object like \{ denyRead/],
    [[], /sandbox\.narrow takes an object/],
    ['denyRead', /sandbox\.narrow takes an object/],
    [7, /sandbox\.narrow takes an object/],
  ])('a narrowing that is not an object (%j)', (narrowing, message) => {
    refuses(narrowing, message);
    expect(() => runner().narrow(narrowing as SandboxNarrowing)).toThrow(TypeError);
  });

  it('an unknown field, listing the known ones', () => {
    refuses(
      { roots: ['/'] },
      /^sandbox runner: sandbox\.narrow has no field "roots" \(known: denyRead, denyWrite, network, by\)$/,
    );
  });

  it.each([true, 'off', 0, null])('a network it cannot take away (%j)', (network) => {
    refuses({ network }, /sandbox\.narrow can only take the network away \(network: false\)$/);
  });

  it('a deny list that is not an array, saying who narrowed', () => {
    refuses(
      { denyRead: '.env', by: 'rules (project)' },
      /sandbox\.narrow "denyRead" must be an array of globs \(from rules \(project\)\)$/,
    );
    refuses({ denyWrite: 'x' }, /sandbox\.narrow "denyWrite" must be an array of globs$/);
  });

  it('a glob it cannot enforce, with its list, index and reason', () => {
    refuses(
      { denyWrite: ['ok.txt', 'a/{b,c}'], by: 'policy P' },
      /sandbox\.narrow "denyWrite\[1\]" "a\/\{b,c\}" uses brackets or braces.* \(from policy P\)$/,
    );
    refuses({ denyRead: ['!x'] }, /"denyRead\[0\]" "!x" starts with "!"/);
  });

  it('a `by` that is not a string is left out of messages', () => {
    refuses({ denyRead: 'x', by: 42 }, /must be an array of globs$/);
  });

  it('everything it can enforce is accepted, also all fields at once', () => {
    const r = runner().narrow({ denyRead: ['a'], denyWrite: ['b'], network: false, by: 'me' });
    expect(r.mode).toBe('workspace-write');
    expect(typeof r.run).toBe('function');
    expect(runner().narrow({}).mode).toBe('workspace-write');
    expect(
      runner({ mode: 'read-only' }).narrow({ network: undefined } as unknown as SandboxNarrowing)
        .mode,
    ).toBe('read-only');
  });
});

describe.skipIf(SKIP_BWRAP)(needsBwrap('narrow() inside the sandbox'), () => {
  const sh = (r: ReturnType<typeof runner>, script: string) =>
    r.run(['bash', '-c', script], { timeoutMs: 20_000 });

  it('an added read deny hides the file from the narrowed runner only', async () => {
    const base = runner();
    const narrowed = base.narrow({ denyRead: ['plain.txt'] });
    expect((await sh(base, 'cat plain.txt')).stdout).toContain('plain-content-5e2a');
    expect((await sh(narrowed, 'cat plain.txt')).stdout).not.toContain('plain-content-5e2a');
    // The runner it came from keeps its own rules.
    expect((await sh(base, 'cat plain.txt')).stdout).toContain('plain-content-5e2a');
  });

  it("the sandbox's own deny lists stay in the narrowed runner", async () => {
    const narrowed = runner({ denyRead: ['plain.txt'] }).narrow({ denyWrite: ['file.txt'] });
    expect((await sh(narrowed, 'cat plain.txt')).stdout).not.toContain('plain-content-5e2a');
    const envRead = await sh(narrowed, 'cat .env');
    expect(envRead.stdout).not.toContain('ws-secret-value');
  });

  it('an added write deny stops writes in the narrowed runner only', async () => {
    await writeFile(`${t.ws}/file.txt`, 'inside\n');
    const base = runner();
    const narrowed = base.narrow({ denyWrite: ['file.txt'] });
    const refused = await sh(narrowed, 'echo changed > file.txt; echo rc=$?');
    expect(refused.stdout).toMatch(/rc=[1-9]/);
    const allowed = await sh(base, 'echo changed > file.txt; echo rc=$?');
    expect(allowed.stdout).toContain('rc=0');
  });

  // Outside the sandbox's network namespace a process sees the host's interfaces; in a fresh one
  // only the loopback.
  const interfaces = async (r: ReturnType<typeof runner>) =>
    (await sh(r, 'tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " "')).stdout
      .trim()
      .split('\n')
      .filter(Boolean);

  it('network: false takes the network away; leaving it out keeps what the sandbox has', async () => {
    const online = runner({ network: true });
    const hostSide = await interfaces(online);
    expect(hostSide.some((i) => i !== 'lo')).toBe(true);
    expect(await interfaces(online.narrow({ network: false }))).toEqual(['lo']);
    expect(await interfaces(online.narrow({ denyRead: ['x'] }))).toEqual(hostSide);
    // A sandbox without network gets none back from a narrowing.
    expect(await interfaces(runner().narrow({}))).toEqual(['lo']);
  });
});
