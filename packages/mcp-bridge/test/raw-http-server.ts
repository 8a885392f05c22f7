import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A Streamable HTTP server written on bare `node:http`, speaking just enough of the protocol
 * (initialize, tools/list, tools/call answered as JSON or as an event stream) to misbehave on
 * demand, per tool:
 *
 *   echo, sse-echo     answer with the text argument (JSON / one event), after `delayMs`
 *   stall-sse          open an event stream and never write to it
 *   progress-forever   an event stream of progress notifications every 50 ms, never an answer
 *   cut-sse            open an event stream, then destroy the connection
 *   bad-json-sse       one event whose data is not JSON, then end the stream
 *   huge-json          a JSON answer of about `bytes` bytes, written in 64 KiB chunks
 *   huge-sse           one event of about `bytes` bytes
 *
 * It counts the tools/call responses still open, which is what a client that leaves its
 * requests open shows as.
 */
export interface RawHttpServer {
  readonly url: string;
  /** tools/call responses not closed yet. */
  openCalls(): number;
  stop(): Promise<void>;
}

const TOOLS = [
  'echo',
  'sse-echo',
  'stall-sse',
  'progress-forever',
  'cut-sse',
  'bad-json-sse',
  'huge-json',
  'huge-sse',
].map((name) => ({
  name,
  description: `Raw test tool ${name}.`,
  inputSchema: { type: 'object', properties: {} },
}));

async function body(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
}

const answer = (id: unknown, result: unknown) => JSON.stringify({ jsonrpc: '2.0', id, result });
const sseHead = (res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
};

/** Writes `total` bytes of filler (inside a JSON string) in chunks, respecting backpressure. */
async function writeFiller(res: ServerResponse, total: number): Promise<boolean> {
  const chunk = 'x'.repeat(64 * 1024);
  for (let written = 0; written < total; written += chunk.length) {
    if (res.destroyed) return false;
    if (!res.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    }
  }
  return !res.destroyed;
}

export async function startRawHttpServer(): Promise<RawHttpServer> {
  const open = new Set<ServerResponse>();
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer(async (req, res) => {
    if (req.method === 'GET') {
      res.writeHead(405).end();
      return;
    }
    if (req.method === 'DELETE') {
      res.writeHead(200).end();
      return;
    }
    const message = (await body(req)) as {
      id?: unknown;
      method?: string;
      params?: {
        name?: string;
        arguments?: Record<string, unknown>;
        _meta?: { progressToken?: unknown };
      };
    };
    if (message.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    if (message.method === 'initialize') {
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'raw-session' });
      res.end(
        answer(message.id, {
          protocolVersion: '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'raw-http', version: '0.0.0' },
        }),
      );
      return;
    }
    if (message.method === 'tools/list') {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(answer(message.id, { tools: TOOLS }));
      return;
    }
    if (message.method !== 'tools/call') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(answer(message.id, {}));
      return;
    }
    open.add(res);
    res.once('close', () => open.delete(res));
    const args = message.params?.arguments ?? {};
    const result = { content: [{ type: 'text', text: String(args.text ?? 'ok') }] };
    const delay = Number(args.delayMs ?? 0);
    if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
    switch (message.params?.name) {
      case 'echo':
        res.writeHead(200, { 'content-type': 'application/json' }).end(answer(message.id, result));
        return;
      case 'sse-echo':
        sseHead(res);
        res.end(`event: message\ndata: ${answer(message.id, result)}\n\n`);
        return;
      case 'stall-sse':
        sseHead(res);
        return;
      case 'progress-forever': {
        sseHead(res);
        let progress = 0;
        const timer = setInterval(() => {
          progress++;
          res.write(
            `event: message\ndata: ${JSON.stringify({
              jsonrpc: '2.0',
              method: 'notifications/progress',
              params: { progressToken: message.params?._meta?.progressToken, progress },
            })}\n\n`,
          );
        }, 50);
        timers.add(timer);
        res.once('close', () => {
          clearInterval(timer);
          timers.delete(timer);
        });
        return;
      }
      case 'cut-sse':
        sseHead(res);
        setTimeout(() => res.destroy(), 20);
        return;
      case 'bad-json-sse':
        sseHead(res);
        res.end('event: message\ndata: {"jsonrpc": "2.0", "id": oops\n\n');
        return;
      case 'huge-json': {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(
          `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":{"content":[{"type":"text","text":"`,
        );
        if (await writeFiller(res, Number(args.bytes))) res.end('"}]}}');
        return;
      }
      case 'huge-sse': {
        sseHead(res);
        res.write(
          `event: message\ndata: {"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":{"content":[{"type":"text","text":"`,
        );
        if (await writeFiller(res, Number(args.bytes))) res.end('"}]}}\n\n');
        return;
      }
      default:
        res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    openCalls: () => open.size,
    stop: () =>
      new Promise((resolve) => {
        for (const timer of timers) clearInterval(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
