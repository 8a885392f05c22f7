import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  assertBuilt,
  cleanEnv,
  runCli,
  type ServeProcess,
  startServe,
  tempDir,
  until,
  writeConfig,
} from './helpers';

// `dsh-tools serve --http` with an `oauth` section, driven by the official SDK client holding an
// access token. The authorization server is the part a resource server talks to (RFC 8414
// metadata and a JWKS, keys made here): no real IdP is reachable from this machine.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

const RESOURCE = 'https://gateway.example.com/mcp';
let issuerServer: Server;
let issuer = '';
let sign: (claims: Record<string, unknown>) => Promise<string>;
const serves: ServeProcess[] = [];

beforeAll(async () => {
  assertBuilt();
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' }] };
  issuerServer = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/oauth-authorization-server') {
      return res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/keys` }));
    }
    if (req.url === '/keys') return res.end(JSON.stringify(jwks));
    res.statusCode = 404;
    res.end('{}');
  });
  await new Promise<void>((resolve) => issuerServer.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
  sign = (claims) =>
    new SignJWT({ iss: issuer, aud: RESOURCE, ...claims })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
});
afterAll(async () => {
  await Promise.allSettled(serves.map((s) => s.stop()));
  await new Promise<void>((resolve) => issuerServer.close(() => resolve()));
});

function oauthConfig(): string {
  const dir = tempDir();
  writeConfig(dir, {
    exampleTools: { writable: false },
    permissions: { allow: ['read_file', 'list_dir'] },
    oauth: { issuer, resource: RESOURCE, scopes: ['mcp'], clientsOnly: false },
    clients: [{ name: 'reader-app', tools: ['read_file'] }],
  });
  return dir;
}

async function connect(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'oauth-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

describe('dsh-tools serve --http with an oauth section', () => {
  it('accepts access tokens issued for it, with each identity’s settings, and publishes its metadata', async () => {
    const serve = await startServe([], { cwd: oauthConfig(), env: cleanEnv() });
    serves.push(serve);
    await until(() =>
      serve.stderr().includes(`OAuth: access tokens from ${issuer} for ${RESOURCE}`),
    );
    expect(serve.stderr()).not.toContain('bearer token (generated');
    const metadata = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', serve.url));
    expect(await metadata.json()).toMatchObject({
      resource: RESOURCE,
      authorization_servers: [issuer],
      scopes_supported: ['mcp'],
    });
    const anyone = await connect(serve.url, await sign({ client_id: 'ci-app', scope: 'mcp' }));
    expect((await anyone.listTools()).tools.map((t) => t.name)).toEqual(['read_file', 'list_dir']);
    const reader = await connect(serve.url, await sign({ client_id: 'reader-app', scope: 'mcp' }));
    expect((await reader.listTools()).tools.map((t) => t.name)).toEqual(['read_file']);
    await Promise.all([anyone.close(), reader.close()]);
    // No scope, or a token for another resource: refused before MCP.
    await expect(connect(serve.url, await sign({ client_id: 'ci-app' }))).rejects.toThrow();
    await expect(
      connect(serve.url, await sign({ client_id: 'ci-app', scope: 'mcp', aud: serve.url })),
    ).rejects.toThrow();
  });

  it('does not start when the issuer’s keys cannot be found, and says where it looked', async () => {
    const dir = tempDir();
    writeConfig(dir, { exampleTools: true, oauth: { issuer: `${issuer}/nowhere` } });
    const { code, stderr } = await runCli(['serve', '--http', '127.0.0.1:0'], { cwd: dir });
    expect(code).toBe(5);
    expect(stderr).toContain(
      `Not serving: Cannot find the signing keys of the OAuth issuer ${issuer}/nowhere`,
    );
    expect(stderr).toContain('/.well-known/oauth-authorization-server/nowhere: HTTP 404');
  });

  it('refuses a client without a token when there is no oauth section, naming it', async () => {
    const dir = tempDir();
    writeConfig(dir, { exampleTools: true, clients: [{ name: 'lonely' }] });
    const { code, stderr } = await runCli(['serve', '--http', '127.0.0.1:0'], { cwd: dir });
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/clients\[0\].*needs an "oauth" section/);
  });
});
