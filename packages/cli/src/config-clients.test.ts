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
        expect.stringMatching(/clients\[0\].*exactly one of "tokenSha256" and "tokenFile"/),
        expect.stringMatching(/clients\[1\].*exactly one of/),
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
  });
});
