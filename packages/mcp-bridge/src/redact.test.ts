import { ToolError } from '@dsh-tools/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRedactor, redactError } from './redact';

/** Secrets as real credentials look: long enough to be told apart from ordinary words. */
const secret = fc.stringMatching(/^[A-Za-z0-9._~-]{8,24}$/);

describe('createRedactor', () => {
  it('leaves no userinfo or query value of the URL in any text, in any spelling', () => {
    fc.assert(
      fc.property(secret, secret, secret, fc.string(), (user, pass, token, noise) => {
        const url = `https://${user}:${pass}@mcp.example.com:8443/mcp?token=${token}&v=2`;
        const redact = createRedactor(url);
        const parsed = new URL(url);
        const texts = [
          url,
          parsed.href,
          `MCP server "x" (${url}) could not be started: fetch failed`,
          `${noise}${token}${noise}`,
          `user ${user} password ${pass}`,
          encodeURIComponent(url),
          JSON.stringify({ url, token }),
        ];
        for (const text of texts) {
          const out = redact(text);
          for (const s of [user, pass, token]) expect(out).not.toContain(s);
        }
        expect(redact(url)).toBe('https://***:***@mcp.example.com:8443/mcp?token=***&v=***');
      }),
      { numRuns: 200 },
    );
  });

  it('is the identity for a URL without secrets, or without a URL', () => {
    expect(createRedactor('http://127.0.0.1:3000/mcp')('at http://127.0.0.1:3000/mcp')).toBe(
      'at http://127.0.0.1:3000/mcp',
    );
    expect(createRedactor(undefined)('anything')).toBe('anything');
  });
});

describe('redactError', () => {
  it('redacts the message, the causes and a ToolError keeps its code', () => {
    const redact = createRedactor('http://127.0.0.1:1/mcp?key=hunter2-secret');
    const inner = Object.assign(new TypeError('connect to ?key=hunter2-secret'), {
      code: 'ECONNREFUSED',
    });
    const outer = new ToolError('UNAVAILABLE', 'down: hunter2-secret', {
      cause: new Error('fetch failed hunter2-secret', { cause: inner }),
      details: { url: 'http://127.0.0.1:1/mcp?key=hunter2-secret' },
    });
    const copy = redactError(outer, redact) as ToolError;
    expect(copy).toBeInstanceOf(ToolError);
    expect(copy.code).toBe('UNAVAILABLE');
    const all = JSON.stringify([
      copy.message,
      (copy.cause as Error).message,
      ((copy.cause as Error).cause as Error).message,
      copy.details,
    ]);
    expect(all).not.toContain('hunter2-secret');
    expect(((copy.cause as Error).cause as { code?: string }).code).toBe('ECONNREFUSED');
  });
});
