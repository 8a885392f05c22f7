import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import {
  compactVerify,
  createLocalJWKSet,
  exportJWK,
  generateKeyPair,
  type JWK,
  SignJWT,
  UnsecuredJWT,
} from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bareGateway } from '../test/bare-gateway';
import { messagesOf, RawSession, resultText } from '../test/raw-mcp-http';
import { type HttpGateway, OAuthSetupError, serveSharedGatewayHttp, tokenSha256 } from './http';
import { discoveryUrls, OAuthResourceServer } from './http-oauth';

// A real authorization server would be an IdP this machine cannot reach; the tests run the part of
// one a resource server talks to: RFC 8414 metadata and a JWKS over HTTP, with keys made here.
// Tokens are signed with those keys by jose, as an IdP signs them.
let issuerServer: Server;
let issuer = '';
type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;
type SigningKey = Parameters<SignJWT['sign']>[0];
let keys: { rsa: KeyPair; ec: KeyPair; stranger: KeyPair };
let jwks: { keys: JWK[] };
let metadataHits = 0;

beforeAll(async () => {
  keys = {
    rsa: await generateKeyPair('RS256', { extractable: true }),
    ec: await generateKeyPair('ES256', { extractable: true }),
    stranger: await generateKeyPair('RS256', { extractable: true }),
  };
  jwks = {
    keys: [
      { ...(await exportJWK(keys.rsa.publicKey)), kid: 'rsa-1', alg: 'RS256', use: 'sig' },
      { ...(await exportJWK(keys.ec.publicKey)), kid: 'ec-1', alg: 'ES256', use: 'sig' },
    ],
  };
  issuerServer = createServer((req, res) => {
    if (req.url === '/.well-known/oauth-authorization-server') {
      metadataHits++;
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
    }
    if (req.url === '/jwks') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify(jwks));
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((resolve) => issuerServer.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => issuerServer.close(() => resolve())));

const CAROL_TOKEN = 'carol-own-token-0123456789abcdef';

async function gatewayWithOAuth(scopes?: string[], clientsOnly = false) {
  const gateway = bareGateway({ echo: true });
  gateway.registry.register({
    name: 'secret',
    description: 'Only some clients may call it.',
    parameters: { type: 'object', properties: {} },
    execute: () => [{ type: 'text', text: 'secret' }],
  });
  const http = await serveSharedGatewayHttp(gateway, {
    host: '127.0.0.1',
    port: 0,
    clients: [
      // Settings of an identity access tokens name (no token of its own).
      { name: 'bob-app', tools: ['echo'] },
      // A client with a token of its own, beside OAuth.
      { name: 'carol', tokenSha256: tokenSha256(CAROL_TOKEN) },
    ],
    oauth: { issuer, clientsOnly, ...(scopes ? { scopes } : {}) },
  });
  return http;
}

interface Claims {
  readonly aud?: string | string[];
  readonly iss?: string;
  readonly exp?: number | false;
  readonly nbf?: number;
  readonly client_id?: string | undefined;
  readonly scope?: string;
  readonly [claim: string]: unknown;
}

/** A token as the issuer signs it, `claims` over sensible defaults for `http`. */
async function token(
  http: HttpGateway,
  claims: Claims = {},
  key: SigningKey = keys.rsa.privateKey,
  header: { alg: string; kid?: string } = { alg: 'RS256', kid: 'rsa-1' },
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const { exp, ...rest } = { aud: http.url, iss: issuer, client_id: 'alice-app', ...claims };
  const jwt = new SignJWT(rest as Record<string, unknown>).setProtectedHeader(header).setIssuedAt();
  if (exp !== false) jwt.setExpirationTime(exp ?? now + 600);
  return jwt.sign(key);
}

const post = (http: HttpGateway, bearer: string | undefined, body: unknown) =>
  fetch(http.url, {
    method: 'POST',
    headers: {
      ...(bearer !== undefined ? { authorization: `Bearer ${bearer}` } : {}),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify(body),
  });

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'oauth-test', version: '1' },
  },
};

/** Whether `jwt`'s signature verifies against the issuer's keys (its claims unchecked). */
async function signatureOnly(jwt: string) {
  return compactVerify(jwt, createLocalJWKSet(jwks));
}

describe('serve --http as an OAuth resource server', () => {
  let http: HttpGateway;
  beforeAll(async () => {
    http = await gatewayWithOAuth();
  });
  afterAll(() => http.close());

  it('publishes its protected resource metadata (RFC 9728), no token needed', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]) {
      const response = await fetch(new URL(path, http.url));
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        resource: http.url,
        authorization_servers: [issuer],
        bearer_methods_supported: ['header'],
        resource_name: 'dsh-tools gateway',
      });
    }
    const wrongMethod = await fetch(new URL('/.well-known/oauth-protected-resource', http.url), {
      method: 'POST',
    });
    expect(wrongMethod.status).toBe(405);
  });

  it('answers a request without a token with a challenge naming the metadata', async () => {
    const response = await post(http, undefined, INIT);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${new URL('/.well-known/oauth-protected-resource/mcp', http.url).href}"`,
    );
    expect(await response.text()).toContain(issuer);
  });

  it('a valid access token opens a session as the client it names; calls run as that client', async () => {
    const session = await new RawSession(http.url, await token(http)).open();
    const call = await (await session.call('echo', { text: 'hi' })).result();
    expect(resultText(call)).toBe('hi');
    // An identity with settings in the config gets them: bob-app may call echo only.
    const bob = await new RawSession(http.url, await token(http, { client_id: 'bob-app' })).open();
    const refused = await (await bob.call('secret', {})).result();
    expect(resultText(refused)).toContain('not available to client "bob-app"');
    // Another identity's token on bob-app's session is a 404, as with client tokens.
    const stolen = await bob.post(
      { jsonrpc: '2.0', id: 9, method: 'tools/list' },
      await token(http, { client_id: 'mallory-app' }),
    );
    expect(stolen.status).toBe(404);
    await stolen.body?.cancel();
    // Nor does another user of the same OAuth client (another sub) reach it.
    const sameAppOtherUser = await bob.post(
      { jsonrpc: '2.0', id: 10, method: 'tools/list' },
      await token(http, { client_id: 'bob-app', sub: 'someone-else' }),
    );
    expect(sameAppOtherUser.status).toBe(404);
    await sameAppOtherUser.body?.cancel();
  });

  it('a header a token could write into never breaks the answer (a 401, not a 500)', async () => {
    // A JWT whose protected header names a "crit" extension with a line break: jose refuses it,
    // and its message must not reach the WWW-Authenticate header.
    const header = Buffer.from(
      JSON.stringify({
        alg: 'RS256',
        kid: 'rsa-1',
        crit: ['x\r\nInjected: 1'],
        'x\r\nInjected: 1': 1,
      }),
    ).toString('base64url');
    const payload = Buffer.from(
      JSON.stringify({ iss: issuer, aud: http.url, client_id: 'a' }),
    ).toString('base64url');
    const response = await post(http, `${header}.${payload}.AAAA`, INIT);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    expect(response.headers.get('www-authenticate')).not.toMatch(/Injected/);
  });

  it('accepts an ES256 token; the client is client_id only, never azp or sub in its place', async () => {
    for (const claims of [
      { client_id: undefined, azp: 'by-azp' },
      { client_id: undefined, sub: 'ci-app' },
    ]) {
      const response = await post(http, await token(http, claims as Claims), INIT);
      expect(response.status).toBe(401);
      expect(await response.text()).toContain('names no client: its \\"client_id\\" claim');
    }
    for (const claims of [{}]) {
      const jwt = await token(http, claims as Claims, keys.ec.privateKey, {
        alg: 'ES256',
        kid: 'ec-1',
      });
      const response = await post(http, jwt, INIT);
      expect(response.status).toBe(200);
      await response.body?.cancel();
    }
  });

  it('a client token from the config still works beside OAuth', async () => {
    const session = await new RawSession(http.url, CAROL_TOKEN).open();
    expect(resultText(await (await session.call('secret', {})).result())).toBe('secret');
  });

  // Each bad token is first shown sound in every other respect (its signature verifies against the
  // issuer's keys, or it decodes as a JWT), so the refusal is for the one thing wrong with it.
  it('refuses, with invalid_token, each token wrong in one respect', async () => {
    const now = Math.floor(Date.now() / 1000);
    const cases: { what: string; jwt: string; why: RegExp; sound?: boolean }[] = [
      {
        what: 'issued for another resource (a token passed on from elsewhere)',
        jwt: await token(http, { aud: 'https://other.example/mcp' }),
        why: /"aud" claim/,
      },
      {
        what: 'from another issuer',
        jwt: await token(http, { iss: 'https://evil.example' }),
        why: /"iss" claim/,
      },
      { what: 'expired', jwt: await token(http, { exp: now - 3600 }), why: /expired/ },
      { what: 'without exp', jwt: await token(http, { exp: false }), why: /"exp" claim/ },
      { what: 'not yet valid', jwt: await token(http, { nbf: now + 3600 }), why: /"nbf" claim/ },
      {
        what: 'naming no client',
        jwt: await token(http, { client_id: undefined }),
        why: /names no client/,
      },
      {
        what: 'naming a client with a control character',
        jwt: await token(http, { client_id: 'a\nb' }),
        why: /names no client/,
      },
      {
        what: 'signed by a key the issuer never published',
        jwt: await token(http, {}, keys.stranger.privateKey, { alg: 'RS256', kid: 'rsa-1' }),
        why: /signature does not verify/,
        sound: false,
      },
      {
        what: 'with an unknown key id',
        jwt: await token(http, {}, keys.stranger.privateKey, { alg: 'RS256', kid: 'rsa-9' }),
        why: /no key/,
        sound: false,
      },
    ];
    for (const c of cases) {
      if (c.sound !== false) await expect(signatureOnly(c.jwt), c.what).resolves.toBeTruthy();
      const response = await post(http, c.jwt, INIT);
      expect({ what: c.what, status: response.status }).toEqual({ what: c.what, status: 401 });
      expect(response.headers.get('www-authenticate'), c.what).toMatch(/error="invalid_token"/);
      const body = (await response.json()) as { error: { message: string } };
      expect(body.error.message, c.what).toMatch(c.why);
    }
  });

  it('refuses an unsigned token (alg none) and an HMAC one keyed with the public key', async () => {
    const unsigned = new UnsecuredJWT({ iss: issuer, aud: http.url, client_id: 'x' })
      .setExpirationTime('10m')
      .encode();
    // Unguarded: a verifier that trusted the header's alg would accept "none".
    expect(UnsecuredJWT.decode(unsigned).payload.client_id).toBe('x');
    const publicPem = new TextEncoder().encode(JSON.stringify(jwks.keys[0]));
    const confused = await new SignJWT({ iss: issuer, aud: http.url, client_id: 'x' })
      .setProtectedHeader({ alg: 'HS256', kid: 'rsa-1' })
      .setExpirationTime('10m')
      .sign(publicPem);
    for (const jwt of [unsigned, confused]) {
      const response = await post(http, jwt, INIT);
      expect(response.status).toBe(401);
      await response.body?.cancel();
    }
  });

  it('an access token may not take the place of a client with its own token', async () => {
    const response = await post(http, await token(http, { client_id: 'carol' }), INIT);
    const text = await response.text();
    expect({ status: response.status, text }).toMatchObject({ status: 403 });
    expect(text).toContain('client \\"carol\\"');
  });

  it('no change to a valid token’s bytes is accepted (property)', async () => {
    const good = await token(http);
    expect((await post(http, good, INIT)).status).toBe(200);
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: good.length - 1 }),
        fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'),
        async (at, ch) => {
          fc.pre(good[at] !== ch && good[at] !== '.');
          const changed = good.slice(0, at) + ch + good.slice(at + 1);
          // A change in the last base64url character's unused bits leaves the bytes the same.
          fc.pre(at !== good.length - 1);
          const response = await post(http, changed, INIT);
          await response.body?.cancel();
          expect(response.status).toBe(401);
        },
      ),
      { seed: 2_023_009, numRuns: 60 },
    );
  });
});

describe('OAuth scopes and setup', () => {
  it('with entries for OAuth identities, only those are let in', async () => {
    const http = await gatewayWithOAuth(undefined, true);
    try {
      const stranger = await post(http, await token(http, { client_id: 'stranger-app' }), INIT);
      expect(stranger.status).toBe(403);
      expect(await stranger.text()).toContain('is not one of this gateway');
      const known = await post(http, await token(http, { client_id: 'bob-app' }), INIT);
      expect(known.status).toBe(200);
      await known.body?.cancel();
    } finally {
      await http.close();
    }
  });

  it('a request that arrives while the issuer is still looked up is never left hanging', async () => {
    // Discovery runs before the port opens: a failing issuer means no port at all, and an answer.
    const gateway = bareGateway({ echo: true });
    await expect(
      serveSharedGatewayHttp(gateway, { port: 0, oauth: { issuer: `${issuer}/missing` } }),
    ).rejects.toThrow(/Cannot find the signing keys/);
  });

  it('a token without a required scope gets 403 insufficient_scope naming it', async () => {
    const http = await gatewayWithOAuth(['mcp:tools']);
    try {
      const without = await post(http, await token(http, { scope: 'openid' }), INIT);
      expect(without.status).toBe(403);
      expect(without.headers.get('www-authenticate')).toMatch(
        /error="insufficient_scope".*scope="mcp:tools"/,
      );
      await without.body?.cancel();
      const withIt = await post(http, await token(http, { scope: 'openid mcp:tools' }), INIT);
      expect(withIt.status).toBe(200);
      for await (const m of messagesOf(withIt)) expect(m.result?.protocolVersion).toBeDefined();
      const metadata = (await (
        await fetch(new URL('/.well-known/oauth-protected-resource', http.url))
      ).json()) as { scopes_supported?: unknown };
      expect(metadata.scopes_supported).toEqual(['mcp:tools']);
    } finally {
      await http.close();
    }
  });

  it('finds the keys through the issuer’s metadata once, not per request', async () => {
    const before = metadataHits;
    const http = await gatewayWithOAuth();
    try {
      for (let i = 0; i < 3; i++) {
        const r = await post(http, await token(http, { n: i }), INIT);
        await r.body?.cancel();
      }
      expect(metadataHits - before).toBe(1);
    } finally {
      await http.close();
    }
  });

  it('does not start, and says why, when the issuer cannot be read or is not https', async () => {
    const gateway = bareGateway({ echo: true });
    await expect(
      serveSharedGatewayHttp(gateway, {
        port: 0,
        oauth: { issuer: 'http://127.0.0.1:1/realm' },
      }),
    ).rejects.toThrow(
      /Cannot find the signing keys of the OAuth issuer http:\/\/127\.0\.0\.1:1\/realm/,
    );
    await expect(
      serveSharedGatewayHttp(gateway, { port: 0, oauth: { issuer: 'http://auth.example.com' } }),
    ).rejects.toThrow(OAuthSetupError);
    await expect(
      serveSharedGatewayHttp(gateway, { port: 0, oauth: { issuer, algorithms: ['HS256'] } }),
    ).rejects.toThrow(/only asymmetric/);
  });

  it('discovery URLs follow RFC 8414 (path inserted) and OpenID Connect', () => {
    expect(discoveryUrls(new URL('https://auth.example.com')).map(String)).toEqual([
      'https://auth.example.com/.well-known/oauth-authorization-server',
      'https://auth.example.com/.well-known/openid-configuration',
    ]);
    expect(discoveryUrls(new URL('https://auth.example.com/realms/team/')).map(String)).toEqual([
      'https://auth.example.com/.well-known/oauth-authorization-server/realms/team',
      'https://auth.example.com/realms/team/.well-known/openid-configuration',
    ]);
  });

  it('refuses metadata that names another issuer (RFC 8414 §3.3)', async () => {
    const lying = (async () =>
      new Response(
        JSON.stringify({ issuer: 'https://other.example', jwks_uri: `${issuer}/jwks` }),
        {
          headers: { 'content-type': 'application/json' },
        },
      )) as unknown as typeof fetch;
    await expect(
      OAuthResourceServer.create({ issuer }, 'http://127.0.0.1:1/mcp', lying),
    ).rejects.toThrow(/names issuer "https:\/\/other.example"/);
  });
});
