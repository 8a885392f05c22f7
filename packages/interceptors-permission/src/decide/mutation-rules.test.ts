/**
 * Reading rules and indexing them (rules.ts, policy-index.ts): what a malformed rule's error says,
 * how a specifier splits into words, and which rules a command's name finds. Each test fails under
 * a one-line change the mutation run (`pnpm mutate:permission`) found surviving there.
 */
import { describe, expect, it } from 'vitest';
import { bash, call, makeProject } from '../../test/helpers';
import type { PermissionRules } from '../types';
import { readOptions } from './options';
import { candidates, policyIndex, shellIndex } from './policy-index';
import { describeOrigin, PermissionRuleError, parseRule, splitSpecWords } from './rules';

const { root, home } = makeProject();
const policyOf = (rules: PermissionRules) => readOptions({ cwd: root, home, rules }).policy;
const origin = { list: 'deny' as const, index: 0, source: 'options' };
const parse = (text: unknown) => parseRule(text, 'deny', origin, '/p', '/p');

describe('reading a rule', () => {
  it('the error is a PermissionRuleError that quotes the rule and shows the forms', () => {
    expect(() => parse('Bash(')).toThrow(PermissionRuleError);
    try {
      parse('Bash(');
    } catch (error) {
      expect((error as Error).name).toBe('PermissionRuleError');
      expect((error as Error).message).toContain(
        'Rules look like Tool, Tool(specifier), mcp__server, mcp__server__* or mcp__server__tool.',
      );
    }
  });

  it('says what a rule that is not a string is', () => {
    expect(() => parse(null)).toThrow(
      'Permission rule "null" in options, deny[0] is a null, not a string.',
    );
    expect(() => parse(5)).toThrow('is a number, not a string');
  });

  it('quotes the first 40 characters of a rule too long', () => {
    const text = `Bash(${'a'.repeat(5000)})`;
    expect(() => parse(text)).toThrow(`Permission rule "${text.slice(0, 40)}…" in options`);
  });

  it('an empty command specifier is refused', () => {
    expect(() => parse('Bash( )')).toThrow('has a command specifier that is empty');
  });

  it('MCP names: a server, a tool, and nothing malformed', () => {
    expect(parse('mcp__a').mcpServer).toBe('a');
    expect(parse('mcp__a__*').mcpServer).toBe('a');
    expect(() => parse('mcp____x')).toThrow('names no MCP server after "mcp__"');
    expect(() => parse('mcp__a!b__t')).toThrow('names no MCP server after "mcp__"');
    expect(() => parse('mcp__a__b!c')).toThrow('has a malformed MCP tool name after the server');
    expect(() => parse('mcp__a__')).toThrow('has a malformed MCP tool name after the server');
  });

  it('a NUL in a path rule is refused; another tool may have a specifier that is no command', () => {
    expect(() => parse('Read(./a\u0000b)')).toThrow('contains a NUL character');
    const other = parse("Other(a 'b)");
    expect(other.specifier).toBe("a 'b");
    expect(other.shell).toBeUndefined();
  });

  it('an origin with a file names it', () => {
    expect(
      describeOrigin({ list: 'deny', index: 2, source: 'project settings', file: '/p/s.json' }),
    ).toBe('project settings (/p/s.json), deny[2]');
  });
});

describe('splitting a specifier into words', () => {
  it('quotes make one word, even an empty one; a lone * is a word', () => {
    expect(splitSpecWords("a 'b c'")).toEqual(['a', 'b c']);
    expect(splitSpecWords("a ''")).toEqual(['a', '']);
    expect(splitSpecWords('a ""')).toEqual(['a', '']);
    expect(splitSpecWords('a *')).toEqual(['a', '\u0000']);
    expect(splitSpecWords('a \\  b')).toEqual(['a', ' ', 'b']);
  });
});

describe('the path and shell indexes', () => {
  it('path lists hold rules with a specifier, by access', () => {
    expect(policyIndex(policyOf({ deny: ['Read'] })).paths.read.all).toEqual([]);
    expect(policyIndex(policyOf({ deny: ['Edit(./x)'] })).paths.write.guard).toHaveLength(1);
  });

  it('a whole-tool rule is not indexed; a rule with no first word goes to every name', () => {
    expect(shellIndex(policyOf({ deny: ['Bash'] }), bash('ls')).deny.always).toEqual([]);
    expect(
      shellIndex(policyOf({ deny: ['Bash(* --force)'] }), bash('ls')).deny.always,
    ).toHaveLength(1);
    const sh = call('sh', { command: 'ls' }, { command: 'command' });
    expect(shellIndex(policyOf({ deny: ["sh(a 'b)"] }), sh).deny.always).toHaveLength(1);
  });

  it('candidates: by name once each, all for an unknown name, remembered up to a bound', () => {
    const index = shellIndex(
      policyOf({ deny: ['Bash(rm:*)', 'Bash(a b:*)', 'Bash(ab:*)', 'Bash(* --force)'] }),
      bash('ls'),
    ).deny;
    const texts = (names: readonly string[] | undefined) =>
      candidates(index, names).map((r) => r.text);
    expect(texts([])).toEqual(['Bash(* --force)']);
    expect(texts(undefined)).toEqual([
      'Bash(* --force)',
      'Bash(rm:*)',
      'Bash(a b:*)',
      'Bash(ab:*)',
    ]);
    expect(texts(['a', 'b'])).toEqual(['Bash(a b:*)', 'Bash(* --force)']);
    expect(texts(['ab'])).toEqual(['Bash(ab:*)', 'Bash(* --force)']);
    expect(texts(['rm', 'rm'])).toEqual(['Bash(rm:*)', 'Bash(* --force)']);
    expect(candidates(index, ['rm'])).toBe(candidates(index, ['rm']));
    for (let i = 0; i < 1100; i++) candidates(index, [`p${i}`]);
    expect(index.memo.size).toBe(1024);
  });
});
