import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSandboxRunner, DEFAULT_DENY_WRITE, sandboxInterceptor } from './index';
import { resolveSandboxOptions } from './options';

// The property test runs on a fixed seed (FC_SEED=<n> explores others); a failure names the seed.
const seed = Number(process.env.FC_SEED ?? 3);
console.info(`options property test: fast-check seed ${seed}`);

describe('options', () => {
  it.each([
    ['not an object', null, 'options must be an object'],
    ['an array', [], 'options must be an object'],
    [
      'no mode',
      {},
      'option "mode" must be one of "read-only", "workspace-write", "full-access" (got undefined',
    ],
    ['a misspelt mode', { mode: 'readonly' }, '(got "readonly")'],
    [
      'an unknown key, with a suggestion',
      { mode: 'read-only', denyread: [] },
      'unknown option "denyread" — did you mean "denyRead"?',
    ],
    ['a relative cwd with a null byte', { mode: 'read-only', cwd: 'a\0' }, 'option "cwd"'],
    ['an empty cwd', { mode: 'read-only', cwd: '' }, 'option "cwd"'],
    [
      'roots not an array',
      { mode: 'workspace-write', roots: '/w' },
      'option "roots" must be an array',
    ],
    ['a root that is not a string', { mode: 'workspace-write', roots: [1] }, 'option "roots[0]"'],
    [
      'the file system root as a root',
      { mode: 'workspace-write', roots: ['/'] },
      'use mode "full-access"',
    ],
    [
      'a bracket glob',
      { mode: 'read-only', denyRead: ['a/[b]'] },
      'option "denyRead[0]" "a/[b]" uses brackets',
    ],
    ['a glob with ..', { mode: 'read-only', denyWrite: ['../x'] }, 'option "denyWrite[0]"'],
    [
      'a non-boolean network',
      { mode: 'read-only', network: 'yes' },
      'option "network" must be a boolean',
    ],
    [
      'a non-boolean allowUnsandboxed',
      { mode: 'read-only', allowUnsandboxed: 1 },
      'option "allowUnsandboxed"',
    ],
    [
      'a relative bwrapPath',
      { mode: 'read-only', bwrapPath: 'bwrap' },
      'option "bwrapPath" must be an absolute path',
    ],
    ['a bad env name', { mode: 'read-only', envAllowlist: ['A-B'] }, 'option "envAllowlist[0]"'],
    [
      'a zero timeout',
      { mode: 'read-only', timeoutMs: 0 },
      'option "timeoutMs" must be an integer',
    ],
    [
      'a NaN output cap',
      { mode: 'read-only', maxOutputBytes: Number.NaN },
      'option "maxOutputBytes"',
    ],
    ['a negative grace', { mode: 'read-only', killGraceMs: -1 }, 'option "killGraceMs"'],
    [
      'an unknown maskScan key',
      { mode: 'read-only', maskScan: { deep: 1 } },
      'unknown option "maskScan.deep"',
    ],
    [
      'a skip name with a slash',
      { mode: 'read-only', maskScan: { skip: ['a/b'] } },
      'option "maskScan.skip[0]"',
    ],
  ])('refuses %s with a TypeError naming the option', (_name, options, message) => {
    // biome-ignore lint/suspicious/noExplicitAny: invalid options on purpose
    expect(() => sandboxInterceptor(options as any)).toThrow(TypeError);
    // biome-ignore lint/suspicious/noExplicitAny: invalid options on purpose
    expect(() => sandboxInterceptor(options as any)).toThrow(message);
    // biome-ignore lint/suspicious/noExplicitAny: invalid options on purpose
    expect(() => createSandboxRunner(options as any)).toThrow(/^createSandboxRunner: /);
  });

  it('pins the numeric defaults the README documents', () => {
    const config = resolveSandboxOptions({ mode: 'workspace-write' }, 'x');
    expect(config).toMatchObject({
      timeoutMs: 120_000,
      maxOutputBytes: 1_048_576,
      killGraceMs: 250,
      scanDepth: 6,
      scanMaxEntries: 20_000,
    });
    expect([...config.scanSkip]).toEqual(['node_modules']);
  });

  // Each bound at its edge, and one past it: a range moved by one fails here.
  it.each([
    ['timeoutMs', 1, 0, { timeoutMs: 1 }, { timeoutMs: 0 }],
    [
      'timeoutMs',
      2_147_483_647,
      2_147_483_648,
      { timeoutMs: 2_147_483_647 },
      { timeoutMs: 2_147_483_648 },
    ],
    ['maxOutputBytes', 1, 0, { maxOutputBytes: 1 }, { maxOutputBytes: 0 }],
    [
      'maxOutputBytes',
      1 << 30,
      (1 << 30) + 1,
      { maxOutputBytes: 1 << 30 },
      { maxOutputBytes: (1 << 30) + 1 },
    ],
    ['killGraceMs', 0, -1, { killGraceMs: 0 }, { killGraceMs: -1 }],
    ['killGraceMs', 60_000, 60_001, { killGraceMs: 60_000 }, { killGraceMs: 60_001 }],
    ['maskScan.depth', 0, -1, { maskScan: { depth: 0 } }, { maskScan: { depth: -1 } }],
    ['maskScan.depth', 64, 65, { maskScan: { depth: 64 } }, { maskScan: { depth: 65 } }],
    ['maskScan.maxEntries', 1, 0, { maskScan: { maxEntries: 1 } }, { maskScan: { maxEntries: 0 } }],
    [
      'maskScan.maxEntries',
      10_000_000,
      10_000_001,
      { maskScan: { maxEntries: 10_000_000 } },
      { maskScan: { maxEntries: 10_000_001 } },
    ],
  ])('option %s accepts %d and refuses %d', (name, _edge, _past, edge, past) => {
    expect(() => resolveSandboxOptions({ mode: 'read-only', ...edge }, 'x')).not.toThrow();
    expect(() => resolveSandboxOptions({ mode: 'read-only', ...past }, 'x')).toThrow(
      `option "${name}" must be an integer`,
    );
  });

  it('fills in the defaults: cwd, roots [cwd], network off, unconfined refused', () => {
    const config = resolveSandboxOptions({ mode: 'workspace-write' }, 'x');
    expect(config.cwd).toBe(process.cwd());
    expect(config.roots).toEqual([process.cwd()]);
    expect(config.network).toBe(false);
    expect(config.allowUnsandboxed).toBe(false);
    expect(config.denyWrite.map((g) => g.source)).toEqual(DEFAULT_DENY_WRITE);
    for (const rc of ['~/.bashrc', '~/.zshrc', '~/.profile', '**/.git/hooks/**']) {
      expect(DEFAULT_DENY_WRITE).toContain(rc);
    }
  });

  it('adds custom deny globs to the defaults, never replacing them', () => {
    const config = resolveSandboxOptions({ mode: 'read-only', denyRead: ['secrets/**'] }, 'x');
    expect(config.denyRead.map((g) => g.source)).toContain('**/.env*');
    expect(config.denyRead.at(-1)).toMatchObject({
      source: 'secrets/**',
      prefix: `${process.cwd()}/secrets`,
    });
  });

  it('property: any options object is accepted or refused with a TypeError, nothing else', () => {
    fc.assert(
      fc.property(
        fc.record(
          {
            mode: fc.oneof(
              fc.constantFrom('read-only', 'workspace-write', 'full-access'),
              fc.anything(),
            ),
            cwd: fc.oneof(fc.string(), fc.anything()),
            roots: fc.oneof(fc.array(fc.string()), fc.anything()),
            denyRead: fc.oneof(fc.array(fc.string()), fc.anything()),
            network: fc.anything(),
            timeoutMs: fc.oneof(fc.integer(), fc.double()),
          },
          { requiredKeys: [] },
        ),
        (options) => {
          try {
            // biome-ignore lint/suspicious/noExplicitAny: arbitrary input on purpose
            sandboxInterceptor(options as any);
          } catch (error) {
            expect(error).toBeInstanceOf(TypeError);
            expect((error as Error).message).toMatch(/^sandboxInterceptor: /);
          }
        },
      ),
      { seed },
    );
  });
});
