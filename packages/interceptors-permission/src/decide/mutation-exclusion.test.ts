/**
 * Reading options, the directory reader's exclusion and the policy's caches (options.ts,
 * exclusion.ts, policy-index.ts): each test fails under a one-line change the mutation run
 * (`pnpm mutate:permission`) found surviving or without coverage there.
 */
import { join } from 'node:path';
import type { PathExclusion, ToolHints } from '@dsh-tools/protocol';
import { describe, expect, it } from 'vitest';
import { bash, call, makeProject } from '../../test/helpers';
import { grantOrigin } from '../grants/rules';
import { PERMISSION_MODES, type PermissionRules } from '../types';
import { honoursExclude, joinExclusions, readExclusion } from './exclusion';
import { checkMode, readOptions } from './options';
import { patternsOf, policyIndex, shellIndex } from './policy-index';
import { PermissionRuleError } from './rules';

const { root, home } = makeProject();
const policyOf = (rules: PermissionRules) => readOptions({ cwd: root, home, rules }).policy;
const SEARCH: ToolHints = {
  readOnly: true,
  paths: [{ arg: 'path', access: 'read', honoursExclude: true }],
};
const search = (name = 'Search', source?: { server: string; tool: string }) =>
  call(name, { path: '.' }, SEARCH, source ? { kind: 'mcp', ...source } : { kind: 'local' });
const toolWith = (paths: NonNullable<ToolHints['paths']>) => call('T', {}, { paths }).tool;

describe('options', () => {
  it('an unknown mode names every mode there is', () => {
    expect(() => checkMode('yolo')).toThrow(
      `Permission mode "yolo" is not one of ${PERMISSION_MODES.join(', ')}.`,
    );
  });

  it.each([[''], [5]])('additionalDirectories holding %j is refused', (dir) => {
    const reading = () => readOptions({ cwd: root, home, additionalDirectories: [dir as string] });
    expect(reading).toThrow(PermissionRuleError);
    expect(reading).toThrow('additionalDirectories must hold non-empty paths.');
  });

  it.each([-1, 1.5, Number.NaN])('parseCacheSize %s is refused, naming it', (size) => {
    expect(() => readOptions({ cwd: root, home, parseCacheSize: size })).toThrow(
      `parseCacheSize must be a whole number >= 0 (got ${size}).`,
    );
  });
});

describe('which tools get an exclusion', () => {
  it('a read hint that promises it, any one of several', () => {
    expect(honoursExclude(search().tool)).toBe(true);
    expect(
      honoursExclude(
        toolWith([
          { arg: 'a', access: 'read' },
          { arg: 'b', access: 'read', honoursExclude: true },
        ]),
      ),
    ).toBe(true);
    expect(honoursExclude(toolWith([{ arg: 'a', access: 'write', honoursExclude: true }]))).toBe(
      false,
    );
    expect(honoursExclude(call('T', {}, {}).tool)).toBe(false);
  });

  it('only path deny rules with a specifier, of the Read family or the tool itself, are carried', () => {
    expect(readExclusion(policyOf({ deny: ['Read'] }), search())).toBeUndefined();
    expect(readExclusion(policyOf({ deny: ['Other(./.env)'] }), search())).toBeUndefined();
    expect(readExclusion(policyOf({ ask: ['Read(./.env)'] }), search())).toBeUndefined();
    expect(readExclusion(policyOf({ deny: ['Search(./.env)'] }), search())?.covers('.env')).toBe(
      true,
    );
  });

  it('is built once per tool, and told apart by MCP server', () => {
    const policy = policyOf({ deny: ['mcp__a__search(./.env)'] });
    const a = search('search', { server: 'a', tool: 'search' });
    const b = search('search', { server: 'b', tool: 'search' });
    expect(readExclusion(policy, a)).toBe(readExclusion(policy, a));
    expect(readExclusion(policy, a)?.covers('.env')).toBe(true);
    expect(readExclusion(policy, b)).toBeUndefined();
    const local = policyOf({ deny: ['Read(./.env)'] });
    expect(readExclusion(local, search())).toBe(readExclusion(local, search()));
  });

  it('its globs name a file rule and what is inside it, and a directory rule once', () => {
    const policy = policyOf({ deny: ['Read(./.env)', 'Read(./secrets/**)'] });
    expect(readExclusion(policy, search())?.globs).toEqual([
      join(root, '.env'),
      join(root, '.env/**'),
      join(root, 'secrets/**'),
    ]);
  });
});

describe('joining exclusions', () => {
  const own = readExclusion(policyOf({ deny: ['Read(./.env)'] }), search()) as PathExclusion;

  it('an outer exclusion that cannot be read leaves nothing to read', () => {
    const joined = joinExclusions({} as PathExclusion, own);
    expect(joined.covers(join(root, 'README.md'))).toBe(true);
    expect(joined.globs).toEqual(['/**']);
  });

  it('keeps what either covers, the globs of both, and the names that are strings', () => {
    const outer = { covers: (p: string) => p.endsWith('x'), globs: ['/x'], by: 'sandbox' };
    const joined = joinExclusions(outer as PathExclusion, own);
    expect(joined.covers('/a/x')).toBe(true);
    expect(joined.covers('.env')).toBe(true);
    expect(joined.covers(join(root, 'README.md'))).toBe(false);
    expect(joined.globs).toEqual(['/x', ...own.globs]);
    expect(joined.by).toBe('sandbox, permission rules');
    const odd = joinExclusions({ covers: () => false, globs: 'x' } as never, own);
    expect(odd.globs).toEqual(own.globs);
    expect(odd.by).toBe('permission rules');
  });
});

describe('the policy caches', () => {
  it('a grant is compiled once per directory, and stays relative without one', () => {
    const rule = grantOrigin({ id: 'g', rule: 'Edit(./x.txt)', origin: { by: 't', at: 0 } });
    expect(patternsOf(rule, home, root)).toBe(patternsOf(rule, home, root));
    expect(patternsOf(rule, home, root)[0]?.test(join(root, 'x.txt'))).toBe(true);
    expect(patternsOf(rule, home, '/elsewhere')[0]?.test('/elsewhere/x.txt')).toBe(true);
    expect(patternsOf(rule, home)[0]?.test(join(root, 'x.txt'))).toBe(false);
    const policy = policyOf({ deny: ['Read(./.env)'] });
    const [deny] = policy.rules;
    expect(deny && patternsOf(deny, home)).toBe(deny && patternsOf(deny, home));
    expect(policyIndex(policy)).toBe(policyIndex(policy));
  });

  it('the shell rules are indexed per tool and MCP server', () => {
    const policy = policyOf({ deny: ['mcp__a__sh(rm:*)'] });
    const sh = (server: string) =>
      call('sh', { command: 'rm x' }, { command: 'command' }, { kind: 'mcp', server, tool: 'sh' });
    expect(shellIndex(policy, sh('a')).deny.byName.get('rm')).toHaveLength(1);
    expect(shellIndex(policy, sh('b')).deny.byName.get('rm')).toBeUndefined();
    expect(shellIndex(policy, bash('rm x'))).toBe(shellIndex(policy, bash('rm x')));
  });
});
