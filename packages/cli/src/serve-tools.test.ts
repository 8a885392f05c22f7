import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMCPClient } from '@ai-sdk/mcp';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadedIn, tempDir } from '../test/helpers';
import { buildGateway, type Gateway } from './gateway';
import { type HttpGateway, serveGatewayHttp } from './http';
import { UNTRUSTED_ANNOTATIONS_META } from './serve';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const here = dirname(fileURLToPath(import.meta.url));
const STRUCTURED = join(here, '..', 'test', 'fixtures', 'structured-server.mjs');
const FILESYSTEM = join(
  dirname(
    createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/package.json'),
  ),
  'dist',
  'index.js',
);
const TOKEN = 'tools-token-0123456789abcdef';
const dir = tempDir('dsh-serve-tools-');
writeFileSync(join(dir, 'hello.txt'), 'hello');

const loaded = loadedIn(dir, {
  mcpServers: {
    structured: { command: process.execPath, args: [STRUCTURED] },
    fs: { command: process.execPath, args: [FILESYSTEM, dir], trust: true },
  },
});

let gateway: Gateway;
let http: HttpGateway;
const closers: (() => Promise<unknown>)[] = [];
beforeAll(async () => {
  gateway = await buildGateway(loaded);
  expect(gateway.failures).toEqual([]);
  http = await serveGatewayHttp(gateway, { port: 0, token: TOKEN });
});
afterAll(async () => {
  for (const close of closers.splice(0)) await close().catch(() => {});
  await http.close();
  await gateway.close();
});

async function sdkClient(): Promise<Client> {
  const client = new Client({ name: 'tools-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(http.url), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
  closers.push(() => client.close());
  return client;
}

describe('serve: tools as their server describes them', () => {
  it('passes title, outputSchema, icons, _meta and annotations through, marking untrusted annotations', async () => {
    const { tools } = await (await sdkClient()).listTools();
    const sum = tools.find((t) => t.name === 'mcp__structured__sum');
    expect(sum).toMatchObject({
      title: 'Add Numbers',
      outputSchema: { type: 'object', required: ['total'] },
      icons: [{ src: 'https://example.com/sum.png', mimeType: 'image/png', sizes: ['48x48'] }],
      annotations: { title: 'Add', readOnlyHint: true, openWorldHint: false },
    });
    expect(sum?._meta).toEqual({
      'example.com/owner': 'tests',
      [UNTRUSTED_ANNOTATIONS_META]: false,
    });
    // A trusted server's annotations pass without the mark.
    const read = tools.find((t) => t.name === 'mcp__fs__read_text_file');
    expect(read?.annotations?.readOnlyHint).toBe(true);
    expect(read?._meta?.[UNTRUSTED_ANNOTATIONS_META]).toBeUndefined();
  });

  it('every server-filesystem tool keeps the title and outputSchema it has when listed directly', async () => {
    const direct = new Client({ name: 'direct', version: '1.0.0' });
    await direct.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [FILESYSTEM, dir],
        stderr: 'pipe',
      }),
    );
    closers.push(() => direct.close());
    const upstream = (await direct.listTools()).tools;
    const through = (await (await sdkClient()).listTools()).tools;
    expect(upstream.length).toBeGreaterThan(10);
    for (const tool of upstream) {
      const mine = through.find((t) => t.name === `mcp__fs__${tool.name}`);
      expect({ name: tool.name, title: mine?.title }).toEqual({
        name: tool.name,
        title: tool.title,
      });
      const { $schema: _a, ...schema } = (tool.outputSchema ?? {}) as Record<string, unknown>;
      const { $schema: _b, ...passed } = (mine?.outputSchema ?? {}) as Record<string, unknown>;
      expect({ name: tool.name, outputSchema: passed }).toEqual({
        name: tool.name,
        outputSchema: schema,
      });
    }
  });

  it('a conforming structuredContent reaches a client that validates it (the SDK client)', async () => {
    const client = await sdkClient();
    await client.listTools();
    const result = await client.callTool({
      name: 'mcp__structured__sum',
      arguments: { a: 1, b: 2 },
    });
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toEqual({ total: 3 });
    const read = await client.callTool({
      name: 'mcp__fs__read_text_file',
      arguments: { path: join(dir, 'hello.txt') },
    });
    expect(read.isError).toBe(false);
    expect(read.structuredContent).toMatchObject({ content: 'hello' });
  });

  it('structuredContent that breaks the tool’s outputSchema, or is missing, is an error naming the tool', async () => {
    const client = await sdkClient();
    const broken = await client.callTool({ name: 'mcp__structured__broken_sum', arguments: {} });
    expect(broken.isError).toBe(true);
    const text = (broken.content as { text: string }[])[0]?.text ?? '';
    expect(text).toContain('"mcp__structured__broken_sum"');
    expect(text).toContain('tool "broken_sum" of MCP server "structured"');
    expect(text).toContain('total');
    expect(broken.structuredContent).toBeUndefined();
    const missing = await client.callTool({ name: 'mcp__structured__no_structure', arguments: {} });
    expect(missing.isError).toBe(true);
    expect((missing.content as { text: string }[])[0]?.text).toContain('no structuredContent');
  });
});

describe('serve, driven by an independent client (@ai-sdk/mcp over Streamable HTTP)', () => {
  it('lists the tools with their metadata and calls one with structured output', async () => {
    const client = await createMCPClient({
      transport: { type: 'http', url: http.url, headers: { authorization: `Bearer ${TOKEN}` } },
    });
    closers.push(() => client.close());
    const { tools } = await client.listTools();
    const sum = tools.find((t) => t.name === 'mcp__structured__sum');
    expect(sum?.title).toBe('Add Numbers');
    expect(sum?.outputSchema).toMatchObject({ required: ['total'] });
    const result = await client.callTool({
      name: 'mcp__structured__sum',
      arguments: { a: 2, b: 5 },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ total: 7 });
  });
});
