// The reference server of the MCP project, over stdio and over Streamable HTTP, started from
// node_modules. Its gzip tool is only ever given data: URIs, and GZIP_ALLOWED_DOMAINS points at
// a reserved name, so nothing here reaches the network.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcpServer, type McpServerConfig, type McpServerHandle } from '../src/index';
import {
  call,
  EVERYTHING,
  type HttpServer,
  LOOPBACK,
  newRegistry,
  startHttpServer,
  text,
} from './helpers';

const NO_NETWORK = { GZIP_ALLOWED_DOMAINS: 'example.invalid' };

const modes: [string, () => Promise<{ config: McpServerConfig; stop?: () => Promise<void> }>][] = [
  [
    'stdio',
    async () => ({
      config: {
        name: 'everything',
        command: process.execPath,
        args: [EVERYTHING, 'stdio'],
        env: NO_NETWORK,
      },
    }),
  ],
  [
    'streamableHttp',
    async () => {
      const server: HttpServer = await startHttpServer(
        ['--import', LOOPBACK, EVERYTHING, 'streamableHttp'],
        {
          PORT: '0',
          ...NO_NETWORK,
        },
      );
      return { config: { name: 'everything', url: server.url }, stop: server.stop };
    },
  ],
];

describe.each(modes)('server-everything over %s', (_mode, start) => {
  const registry = newRegistry();
  let handle: McpServerHandle;
  let stop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    const started = await start();
    stop = started.stop;
    handle = await connectMcpServer(registry, {
      ...started.config,
      timeoutMs: 1500,
      trust: true,
      onError: () => {},
    });
  });
  afterAll(async () => {
    await handle?.close();
    await stop?.();
  });

  it('registers its tools with schemas and trusted hints', () => {
    const names = handle.tools.map((t) => t.tool);
    // simulate-research-query is added once the session is initialized, announced by a
    // tools/list_changed that over HTTP goes out before any stream can carry it: only the listing
    // made right after connecting finds it.
    for (const tool of [
      'echo',
      'get-sum',
      'get-tiny-image',
      'get-structured-content',
      'trigger-long-running-operation',
      'simulate-research-query',
    ]) {
      expect(names).toContain(tool);
    }
    const sum = registry.get('mcp__everything__get-sum');
    expect(sum?.parameters.type).toBe('object');
    expect(sum?.parameters).not.toHaveProperty('$schema');
    expect(registry.get('mcp__everything__trigger-long-running-operation')?.hints).toMatchObject({
      readOnly: true,
      idempotent: true,
    });
  });

  it('echoes and adds', async () => {
    expect(text(await call(registry, 'mcp__everything__echo', { message: 'hi' }))).toContain('hi');
    expect(text(await call(registry, 'mcp__everything__get-sum', { a: 2, b: 3 }))).toContain('5');
  });

  it('returns an image block', async () => {
    const result = await call(registry, 'mcp__everything__get-tiny-image');
    const image = result.content.find((b) => b.type === 'image');
    expect(image).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(image?.type === 'image' && image.data.length).toBeGreaterThan(100);
  });

  it('keeps structured content', async () => {
    const result = await call(registry, 'mcp__everything__get-structured-content', {
      location: 'Chicago',
    });
    expect(result.structuredContent).toEqual({
      temperature: 36,
      conditions: 'Light rain / drizzle',
      humidity: 82,
    });
  });

  it('maps resource links and embedded resources', async () => {
    const links = await call(registry, 'mcp__everything__get-resource-links', { count: 2 });
    expect(links.content.filter((b) => b.type === 'resource_link')).toHaveLength(2);
    const gz = await call(registry, 'mcp__everything__gzip-file-as-resource', {
      name: 'hello.gz',
      data: 'data:text/plain;base64,aGVsbG8gd29ybGQ=',
      outputType: 'resource',
    });
    expect(gz.content[0]).toMatchObject({
      type: 'resource',
      resource: { mimeType: 'application/gzip' },
    });
  });

  it('turns a tool error into MCP_ERROR with the server text', async () => {
    const result = await call(registry, 'mcp__everything__gzip-file-as-resource', {
      data: 'ftp://example.invalid/x',
    });
    expect(result.error?.code).toBe('MCP_ERROR');
    expect(result.error?.message).toContain('Unsupported URL protocol');
  });

  it('runs a long operation past timeoutMs while it reports progress', async () => {
    // 3 s in all, progress every 0.5 s, against a 1.5 s limit that progress keeps resetting.
    const result = await call(registry, 'mcp__everything__trigger-long-running-operation', {
      duration: 3,
      steps: 6,
    });
    expect(result.isError).toBe(false);
    expect(text(result)).toContain('Long running operation completed');
  });
});
