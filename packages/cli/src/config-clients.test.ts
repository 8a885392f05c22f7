import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from './config';

const HASH = 'a'.repeat(64);
const parse = (value: unknown) => parseConfig(value, '/cfg/dsh-tools.json', { env: {} });
const issues = (value: unknown): string[] => {
  try {
    parse(value);
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((i) => `${i.path}: ${i.message}`);
    throw error;
  }
  return [];
};

describe('config: clients of serve --http', () => {
  it('takes clients with a token hash or a token file, a tools list and a mode', () => {
    const { config } = parse({
      permissions: { allow: ['Read'] },
      clients: [
        { name: 'alice', tokenSha256: HASH, tools: ['mcp__notes__*'] },
        { name: 'ci-bot', tokenFile: 'tokens/ci', mode: 'plan' },
      ],
    });
    expect(config.clients).toEqual([
      { name: 'alice', tokenSha256: HASH, tools: ['mcp__notes__*'] },
      { name: 'ci-bot', tokenFile: 'tokens/ci', mode: 'plan' },
    ]);
  });

  it('names every mistake: both or no token, a bad hash, a duplicate name, a mode without permissions', () => {
    const found = issues({
      clients: [
        { name: 'a', tokenSha256: HASH, tokenFile: 'x' },
        { name: 'b' },
        { name: 'c', tokenSha256: 'not-a-hash' },
        { name: 'd', tokenSha256: HASH, mode: 'plan' },
        { name: 'd', tokenFile: 'y' },
        { name: 'no spaces', tokenFile: 'z' },
      ],
    });
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/clients\[0\].*one of "tokenSha256" and "tokenFile", not both/),
        expect.stringMatching(/clients\[2\]\.tokenSha256.*64 hex digits/),
        expect.stringMatching(/clients\[5\]\.name/),
      ]),
    );
    const semantic = issues({
      clients: [
        { name: 'd', tokenSha256: HASH, mode: 'plan' },
        { name: 'd', tokenFile: 'y' },
      ],
    });
    expect(semantic).toEqual([
      expect.stringMatching(/clients\[0\]\.mode: .*needs a "permissions" section/),
      expect.stringMatching(/clients\[1\]\.name: "d" is used twice/),
    ]);
    expect(issues({ clients: [] })).toEqual([expect.stringMatching(/^clients/)]);
    // No token at all is an OAuth identity's entry, which needs an "oauth" section.
    expect(issues({ clients: [{ name: 'b' }] })).toEqual([
      expect.stringMatching(
        /clients\[0\]: give "tokenSha256" or "tokenFile".*needs an "oauth" section/,
      ),
    ]);
  });

  it('takes an oauth section, and clients without a token as the settings of OAuth identities', () => {
    const { config } = parse({
      oauth: { issuer: 'https://auth.example.com', scopes: ['mcp'], clockToleranceSec: 10 },
      clients: [{ name: 'bob-app', tools: ['echo'] }],
    });
    expect(config.oauth).toEqual({
      issuer: 'https://auth.example.com',
      scopes: ['mcp'],
      clockToleranceSec: 10,
    });
    expect(config.clients).toEqual([{ name: 'bob-app', tools: ['echo'] }]);
    expect(issues({ oauth: { issuer: 'not a url' } })).toEqual([
      expect.stringMatching(/^oauth\.issuer/),
    ]);
    expect(issues({ oauth: { issuer: 'https://a.example', extra: 1 } })).toEqual([
      expect.stringMatching(/^oauth/),
    ]);
    expect(issues({ oauth: { issuer: 'https://a.example', clockToleranceSec: 3600 } })).toEqual([
      expect.stringMatching(/^oauth\.clockToleranceSec/),
    ]);
  });

  it('takes limits for every client, per tool pattern, and a client’s own', () => {
    const { config } = parse({
      limits: {
        callsPerMinute: 60,
        concurrent: 4,
        tools: { 'mcp__github__*': { callsPerMinute: 5 } },
      },
      clients: [{ name: 'ci', tokenSha256: HASH, limits: { callsPerMinute: 600 } }],
    });
    expect(config.limits).toEqual({
      callsPerMinute: 60,
      concurrent: 4,
      tools: { 'mcp__github__*': { callsPerMinute: 5 } },
    });
    expect(config.clients?.[0]?.limits).toEqual({ callsPerMinute: 600 });
    expect(issues({ limits: { callsPerMinute: 0 } })).toEqual([
      expect.stringMatching(/^limits\.callsPerMinute/),
    ]);
    expect(issues({ limits: { concurrent: 1.5 } })).toEqual([
      expect.stringMatching(/^limits\.concurrent/),
    ]);
    expect(issues({ limits: { perMinute: 5 } })).toEqual([expect.stringMatching(/^limits/)]);
  });
});
