#!/usr/bin/env node
// An MCP server for fault injection, built on the official server SDK (v1, the line most deployed
// servers run). Usage: `node fault-server.mjs [stdio|http]`; behaviour is chosen per process by
// environment variables and per call by tool:
//
//   FAULT_START=exit        write a few stderr lines and exit 3 before speaking MCP
//   FAULT_START=silent      never answer anything (a server hung at start)
//   FAULT_START=garbage     print non-JSON lines on stdout before the first message
//   Startup stalls, spoken by a raw line reader (no SDK), each staying alive until killed:
//   FAULT_START=oversize    write one stdout line of FAULT_LINE_BYTES (default 2 MiB) bytes
//                           before answering initialize (FAULT_LINE_END=0: never end the line)
//   FAULT_START=close-stdout   close stdout at once, keep running
//   FAULT_START=no-read     never read stdin (writes to it block once the pipe is full)
//   FAULT_START=init-only   answer initialize, never answer tools/list
//   FAULT_START=exit-mid-handshake  read initialize, then exit 0 without answering
//   FAULT_START=stderr-flood   write to stderr without end, never answer
//   FAULT_START=raw         a working server without the SDK, whose one tool `as-given` answers
//                           with its `result` argument exactly (the SDK server would validate it)
//   FAULT_EXTRA_TOOLS=N     N more tools named t0000, t0001, ... (for the 1,000-tool case)
//   FAULT_PAGE_SIZE=N       tools/list pages of N tools (default 100)
//   FAULT_WEIRD_NAMES=1     tools whose names clash once normalized (a.b, a_b, a b, long ones)
//   FAULT_HOSTILE=1         a duplicate name, a 100 KB description, a non-object schema, ...
//   FAULT_LIST_FAIL_AFTER=N the (N+1)th and later tools/list fail with a JSON-RPC error
//   FAULT_EXIT_IF_FILE=path behave like FAULT_START=exit while that file exists (failing restarts)
//   FAULT_PORT=N            http mode: listen on this port (default: ephemeral)
//   FAULT_SILENT_IF_FILE=p  behave like FAULT_START=silent while that file exists (a restart that hangs)
//   FAULT_CHANGE_DURING_LIST=1  during the first listing of the process, add tool early-<pid> and
//                           send tools/list_changed before answering with the list from before
//   FAULT_NOTIFY_ON_LIST=1  send tools/list_changed with every tools/list
//   FAULT_LIST_DELAY_MS=N   answer every tools/list page after N ms
//   FAULT_ENDLESS_PAGES=1   every page is empty with a fresh cursor: the list never ends
//   FAULT_REPEAT_CURSOR=1   every page is empty with the same cursor
//   FAULT_BIG_PAGE=N        the first page holds N more tools (big-0, big-1, ...)
//
// The tools `http-500` and `http-422` are answered with that bare HTTP status in http mode (before MCP sees it).
//
// In http mode it listens on 127.0.0.1 on an ephemeral port and prints `PORT=<n>` on stdout.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, writeSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';

const mode = process.argv[2] ?? 'stdio';
const env = process.env;

const TINY_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

const stats = { toolsList: 0, listings: 0, cancelled: 0, calls: 0 };
const grandchildren = [];

function baseTools() {
  const obj = (properties = {}, required = []) => ({
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties,
    required,
  });
  const tools = [
    {
      name: 'echo',
      description: 'Echoes its text.',
      inputSchema: obj({ text: { type: 'string' } }, ['text']),
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    { name: 'all-content', description: 'Returns one block of every type.', inputSchema: obj() },
    {
      name: 'structured',
      description: 'Returns structured content only.',
      inputSchema: obj({ n: { type: 'number' } }),
    },
    {
      name: 'fail',
      description: 'Reports a tool error.',
      inputSchema: obj(),
      annotations: { destructiveHint: true },
    },
    { name: 'protocol-error', description: 'Answers with a JSON-RPC error.', inputSchema: obj() },
    { name: 'crash', description: 'Exits the process mid-call.', inputSchema: obj() },
    { name: 'hang', description: 'Never answers.', inputSchema: obj() },
    {
      name: 'progress',
      description: 'Reports progress every intervalMs, steps times, then answers.',
      inputSchema: obj({ steps: { type: 'number' }, intervalMs: { type: 'number' } }),
    },
    {
      name: 'garbage',
      description: 'Prints non-JSON on stdout, then answers.',
      inputSchema: obj(),
    },
    {
      name: 'set-tools',
      description: 'Adds and removes dynamic tools, then sends tools/list_changed.',
      inputSchema: obj({
        add: { type: 'array', items: { type: 'string' } },
        remove: { type: 'array', items: { type: 'string' } },
      }),
    },
    {
      name: 'storm',
      description: 'Sends `count` tools/list_changed, adding tool storm-<i> before each.',
      inputSchema: obj({ count: { type: 'number' } }),
    },
    { name: 'stats', description: 'Counters of what the server saw.', inputSchema: obj() },
    {
      name: 'oversize',
      description: 'Writes one stdout line of `bytes` bytes, then never answers.',
      inputSchema: obj({ bytes: { type: 'number' } }),
    },
    { name: 'spawn-grandchild', description: 'Starts a long sleep child.', inputSchema: obj() },
    {
      name: 'drop-sessions',
      description: 'Forgets every HTTP session before the next request.',
      inputSchema: obj(),
    },
    { name: 'fail-lists', description: 'Makes every later tools/list fail.', inputSchema: obj() },
    {
      name: 'fail-next-page',
      description: 'Makes the next tools/list page after a first one fail, once.',
      inputSchema: obj(),
    },
    {
      name: 'notify',
      description: 'Sends `count` tools/list_changed, one every `intervalMs`, then answers.',
      inputSchema: obj({ count: { type: 'number' }, intervalMs: { type: 'number' } }),
    },
    { name: 'http-500', description: 'Over HTTP, answered with a bare 500.', inputSchema: obj() },
    { name: 'http-422', description: 'Over HTTP, answered with a bare 422.', inputSchema: obj() },
    {
      name: 'flip-extra',
      description: 'Renames every extra tool (a new generation), without notifying.',
      inputSchema: obj(),
    },
  ];
  if (env.FAULT_WEIRD_NAMES === '1') {
    for (const name of ['a.b', 'a_b', 'a b', 'x'.repeat(100), `${'x'.repeat(99)}y`, 'ünïcödé']) {
      tools.push({ name, description: `weird ${name.length}`, inputSchema: obj() });
    }
  }
  if (env.FAULT_HOSTILE === '1') {
    tools.push(
      { name: 'echo', description: 'A second tool named echo.', inputSchema: obj() },
      { name: 'huge-description', description: 'd'.repeat(100_000), inputSchema: obj() },
      {
        name: 'string-schema',
        description: 'Its schema is not an object schema.',
        inputSchema: { type: 'string' },
      },
      { name: 'no-description', inputSchema: obj() },
      { name: 'deep', description: 'A deep schema.', inputSchema: obj({ a: nest(200) }) },
      {
        name: 'bad-properties',
        description: 'Its properties are not an object.',
        inputSchema: { type: 'object', properties: 5 },
      },
      {
        name: 'bad-required',
        description: 'Its required is not an array.',
        inputSchema: { type: 'object', properties: {}, required: 'x' },
      },
    );
  }
  const extra = Number(env.FAULT_EXTRA_TOOLS ?? 0);
  for (let i = 0; i < extra; i++) {
    const name = `${generation === 0 ? '' : `g${generation}_`}t${String(i).padStart(4, '0')}`;
    tools.push({
      name,
      description: `Extra tool ${i}.`,
      inputSchema: obj({ value: { type: 'string', description: 'anything' } }),
    });
  }
  return tools;
}

function nest(depth) {
  let schema = { type: 'string' };
  for (let i = 0; i < depth; i++) schema = { type: 'object', properties: { x: schema } };
  return schema;
}

const dynamic = new Map();
let generation = 0;
let failNextPage = false;
let listsFailAfter =
  env.FAULT_LIST_FAIL_AFTER === undefined ? Infinity : Number(env.FAULT_LIST_FAIL_AFTER);
const servers = new Set();

function currentTools() {
  return [...baseTools(), ...dynamic.values()];
}

function broadcastListChanged() {
  for (const server of servers) server.sendToolListChanged().catch(() => {});
}

function makeServer() {
  const server = new Server(
    { name: 'fault-server', version: '1.0.0' },
    { capabilities: { tools: { listChanged: true } } },
  );
  servers.add(server);
  server.onclose = () => servers.delete(server);
  const pageSize = Number(env.FAULT_PAGE_SIZE ?? 100);

  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    stats.toolsList++;
    if (env.FAULT_NOTIFY_ON_LIST === '1') broadcastListChanged();
    if (env.FAULT_LIST_DELAY_MS)
      await new Promise((r) => setTimeout(r, Number(env.FAULT_LIST_DELAY_MS)));
    if (env.FAULT_ENDLESS_PAGES === '1') return { tools: [], nextCursor: `c${stats.toolsList}` };
    if (env.FAULT_REPEAT_CURSOR === '1') return { tools: [], nextCursor: 'same' };
    if (env.FAULT_CHANGE_DURING_LIST === '1' && stats.toolsList === 1) {
      const before = currentTools();
      const name = `early-${process.pid}`;
      dynamic.set(name, { name, description: name, inputSchema: { type: 'object' } });
      broadcastListChanged();
      // Answered a little later, so that the notification arrives during the listing.
      await new Promise((r) => setTimeout(r, 50));
      return { tools: before };
    }
    if (stats.toolsList > listsFailAfter) {
      throw new McpError(ErrorCode.InternalError, 'tools/list is failing on purpose');
    }
    const all = currentTools();
    const start = request.params?.cursor ? Number(request.params.cursor) : 0;
    if (start === 0) stats.listings++;
    if (start > 0 && failNextPage) {
      failNextPage = false;
      throw new McpError(ErrorCode.InternalError, 'a later page of tools/list failed on purpose');
    }
    const big = Number(env.FAULT_BIG_PAGE ?? 0);
    if (big > 0 && start === 0) {
      return {
        tools: Array.from({ length: big }, (_, i) => ({
          name: `big-${i}`,
          inputSchema: { type: 'object' },
        })),
      };
    }
    const page = all.slice(start, start + pageSize);
    const next = start + pageSize < all.length ? String(start + pageSize) : undefined;
    return next === undefined ? { tools: page } : { tools: page, nextCursor: next };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    stats.calls++;
    const args = request.params.arguments ?? {};
    extra.signal.addEventListener('abort', () => stats.cancelled++);
    switch (request.params.name) {
      case 'echo':
        return { content: [{ type: 'text', text: String(args.text) }] };
      case 'all-content':
        return {
          content: [
            { type: 'text', text: 'hello', annotations: { audience: ['user'], priority: 0.5 } },
            { type: 'image', data: TINY_PNG, mimeType: 'image/png' },
            { type: 'audio', data: 'UklGRiQAAABXQVZF', mimeType: 'audio/wav' },
            {
              type: 'resource_link',
              uri: 'file:///tmp/a.txt',
              name: 'a.txt',
              description: 'a file',
              mimeType: 'text/plain',
              size: 3,
            },
            { type: 'resource', resource: { uri: 'mem://t', mimeType: 'text/plain', text: 'abc' } },
            {
              type: 'resource',
              resource: { uri: 'mem://b', mimeType: 'application/octet-stream', blob: 'AAEC' },
            },
          ],
        };
      case 'structured':
        return { content: [], structuredContent: { n: args.n ?? 1, ok: true } };
      case 'fail':
        return { isError: true, content: [{ type: 'text', text: 'disk is full' }] };
      case 'protocol-error':
        throw new McpError(ErrorCode.InvalidParams, 'the server refuses this call');
      case 'crash':
        writeSync(2, 'fault-server: segmentation fault (simulated)\n');
        setTimeout(() => process.exit(7), 20);
        return new Promise(() => {});
      case 'hang':
        return new Promise(() => {});
      case 'progress': {
        const steps = Number(args.steps ?? 3);
        const interval = Number(args.intervalMs ?? 50);
        const token = request.params._meta?.progressToken;
        for (let i = 1; i <= steps; i++) {
          await new Promise((r) => setTimeout(r, interval));
          if (extra.signal.aborted) throw new Error('cancelled');
          if (token !== undefined) {
            await extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken: token, progress: i, total: steps },
            });
          }
        }
        return {
          content: [
            { type: 'text', text: `done after ${steps} steps, token=${token !== undefined}` },
          ],
        };
      }
      case 'oversize':
        process.stdout.write(`${'x'.repeat(args.bytes ?? 1024 * 1024)}\n`);
        return new Promise(() => {});
      case 'garbage':
        process.stdout.write('garbage line 1\n\n[not, json\n{"jsonrpc":"2.0"}\n');
        return { content: [{ type: 'text', text: 'survived' }] };
      case 'set-tools': {
        for (const name of args.remove ?? []) dynamic.delete(name);
        for (const name of args.add ?? []) {
          dynamic.set(name, {
            name,
            description: `Dynamic ${name}.`,
            inputSchema: { type: 'object', properties: {} },
          });
        }
        setTimeout(broadcastListChanged, 0);
        return { content: [{ type: 'text', text: 'ok' }] };
      }
      case 'storm': {
        const count = Number(args.count ?? 100);
        for (let i = 0; i < count; i++) {
          const name = `storm-${i}`;
          dynamic.set(name, { name, description: name, inputSchema: { type: 'object' } });
          broadcastListChanged();
        }
        return { content: [{ type: 'text', text: `sent ${count}` }] };
      }
      case 'stats':
        return {
          content: [{ type: 'text', text: JSON.stringify(stats) }],
          structuredContent: stats,
        };
      case 'spawn-grandchild': {
        const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
          stdio: 'ignore',
        });
        grandchildren.push(child);
        return { content: [{ type: 'text', text: String(child.pid) }] };
      }
      case 'drop-sessions':
        // Forgotten when the next request arrives, so that this answer still gets through.
        dropBeforeNext = true;
        return { content: [{ type: 'text', text: 'dropping' }] };
      case 'fail-next-page':
        failNextPage = true;
        return { content: [{ type: 'text', text: 'the next page after the first will fail' }] };
      case 'notify': {
        const count = Number(args.count ?? 10);
        const interval = Number(args.intervalMs ?? 20);
        for (let i = 0; i < count; i++) {
          broadcastListChanged();
          await new Promise((r) => setTimeout(r, interval));
        }
        return { content: [{ type: 'text', text: `notified ${count}` }] };
      }
      case 'http-500':
      case 'http-422':
        return { content: [{ type: 'text', text: 'only fails over http' }] };
      case 'flip-extra':
        generation++;
        return { content: [{ type: 'text', text: `generation ${generation}` }] };
      case 'fail-lists':
        listsFailAfter = stats.toolsList;
        return { content: [{ type: 'text', text: 'lists will fail' }] };
      default: {
        const tool = currentTools().find((t) => t.name === request.params.name);
        if (!tool)
          throw new McpError(ErrorCode.InvalidParams, `unknown tool ${request.params.name}`);
        return { content: [{ type: 'text', text: `${tool.name}:${JSON.stringify(args)}` }] };
      }
    }
  });
  return server;
}

let dropSessions;
let dropBeforeNext = false;

async function start() {
  if (mode === 'stdio') {
    await makeServer().connect(new StdioServerTransport());
    return;
  }
  const sessions = new Map();
  dropSessions = () => {
    for (const transport of sessions.values()) transport.close().catch(() => {});
    sessions.clear();
  };
  const http = createHttpServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    const bare = { 'http-500': 500, 'http-422': 422 }[body?.params?.name];
    if (body?.method === 'tools/call' && bare) {
      res.writeHead(bare, { 'content-type': 'text/plain' });
      res.end('internal server error (on purpose)');
      return;
    }
    if (dropBeforeNext) {
      dropBeforeNext = false;
      dropSessions();
    }
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (!transport) {
      if (sessionId !== undefined || req.method !== 'POST') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            error: { code: -32001, message: 'Session not found' },
            id: null,
          }),
        );
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => sessions.set(id, transport),
      });
      await makeServer().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  });
  http.listen(Number(env.FAULT_PORT ?? 0), '127.0.0.1', () => {
    process.stdout.write(`PORT=${http.address().port}\n`);
  });
}

if (env.FAULT_START === 'exit' || (env.FAULT_EXIT_IF_FILE && existsSync(env.FAULT_EXIT_IF_FILE))) {
  // Written synchronously: process.exit() drops what is still queued on a piped stderr.
  writeSync(2, 'fault-server: starting\n');
  writeSync(2, 'fault-server: cannot open database /nonexistent/db.sqlite\n');
  writeSync(2, 'fault-server: fatal: giving up\n');
  process.exit(3);
}
const RAW_STARTS = [
  'oversize',
  'close-stdout',
  'no-read',
  'init-only',
  'exit-mid-handshake',
  'stderr-flood',
  'raw',
];

/** A server that stalls its startup in one of the ways listed at the top, speaking raw lines. */
function rawStart(kind) {
  const keepAlive = () => setInterval(() => {}, 1 << 30);
  const initResult = (id) =>
    `${JSON.stringify({
      jsonrpc: '2.0',
      id,
      result: {
        protocolVersion: '2025-06-18',
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: 'fault-raw', version: '0.0.0' },
      },
    })}\n`;
  if (kind === 'close-stdout') {
    process.stdout.destroy();
    process.stdin.resume();
    keepAlive();
    return;
  }
  if (kind === 'no-read') {
    keepAlive();
    return;
  }
  if (kind === 'stderr-flood') {
    const chunk = `${'noise '.repeat(1000)}\n`;
    const flood = () => process.stderr.write(chunk, () => setImmediate(flood));
    flood();
    process.stdin.resume();
    return;
  }
  let buffered = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (text) => {
    buffered += text;
    let nl = buffered.indexOf('\n');
    while (nl !== -1) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      nl = buffered.indexOf('\n');
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        continue;
      }
      if (kind === 'raw' && message.method !== 'initialize') {
        rawAnswer(message);
        continue;
      }
      if (message.method !== 'initialize') continue;
      if (kind === 'exit-mid-handshake') process.exit(0);
      if (kind === 'oversize') {
        const size = Number(env.FAULT_LINE_BYTES ?? 2 * 1024 * 1024);
        process.stdout.write('x'.repeat(size));
        if (env.FAULT_LINE_END !== '0') process.stdout.write('\n');
      }
      process.stdout.write(initResult(message.id));
    }
  });
  keepAlive();
}

/** The `raw` server's answers, written without the SDK so that nothing checks them. */
function rawAnswer(message) {
  if (message.id === undefined) return;
  const reply = (result) =>
    process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\n`);
  if (message.method === 'tools/list') {
    reply({
      tools: [
        {
          name: 'as-given',
          description: 'Answers with its `result` argument as the whole result.',
          inputSchema: { type: 'object', properties: { result: {} } },
        },
      ],
    });
  } else if (message.method === 'tools/call') {
    reply(message.params?.arguments?.result);
  } else {
    reply({});
  }
}

if (RAW_STARTS.includes(env.FAULT_START)) {
  rawStart(env.FAULT_START);
} else if (
  env.FAULT_START === 'silent' ||
  (env.FAULT_SILENT_IF_FILE && existsSync(env.FAULT_SILENT_IF_FILE))
) {
  process.stdin.resume();
  setInterval(() => {}, 1 << 30);
} else {
  if (env.FAULT_START === 'garbage') {
    process.stdout.write('Welcome to the fault server! (this line is not JSON)\n');
    process.stdout.write('{"half": "a JSON object that is not JSON-RPC"}\n');
  }
  start();
}
