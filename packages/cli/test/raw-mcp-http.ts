/**
 * A raw MCP client over Streamable HTTP for the tests: fetch and a few lines of SSE parsing, no
 * SDK, so that what the gateway puts on which stream is seen as a client sees it. It never opens
 * the optional GET stream.
 */

/** One JSON-RPC message as the tests read it. */
export type Message = {
  readonly jsonrpc: '2.0';
  readonly id?: string | number | null;
  readonly method?: string;
  readonly params?: Record<string, unknown>;
  readonly result?: Record<string, unknown>;
  readonly error?: { readonly code: number; readonly message: string };
};

/** The JSON-RPC messages of a response: its JSON body, or each `data:` event of its SSE stream. */
export async function* messagesOf(response: Response): AsyncGenerator<Message> {
  const type = response.headers.get('content-type') ?? '';
  if (!type.includes('text/event-stream')) {
    const text = await response.text();
    if (text === '') return;
    const value = JSON.parse(text) as Message | Message[];
    for (const m of Array.isArray(value) ? value : [value]) yield m;
    return;
  }
  const reader = response.body?.getReader();
  if (!reader) return;
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end = buffer.indexOf('\n\n');
      while (end !== -1) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trimStart())
          .join('\n');
        if (data !== '') yield JSON.parse(data) as Message;
        end = buffer.indexOf('\n\n');
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** A 2025-era session opened with a raw `initialize`. */
export class RawSession {
  readonly #url: string;
  readonly #token: string;
  #session = '';
  #nextId = 1;

  constructor(url: string, token: string) {
    this.#url = url;
    this.#token = token;
  }

  /** The session id the gateway gave. */
  get id(): string {
    return this.#session;
  }

  /** POSTs one message (or a batch) on this session; the raw response. */
  post(body: unknown, token = this.#token, session = this.#session): Promise<Response> {
    return fetch(this.#url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
        ...(session ? { 'mcp-session-id': session } : {}),
      },
      body: JSON.stringify(body),
    });
  }

  /** Initializes the session, declaring `capabilities`, and sends `initialized`. */
  async open(capabilities: Record<string, unknown> = {}): Promise<this> {
    const response = await this.post({
      jsonrpc: '2.0',
      id: this.#nextId++,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities,
        clientInfo: { name: 'raw-test-client', version: '1.0.0' },
      },
    });
    if (response.status !== 200) throw new Error(`initialize: HTTP ${response.status}`);
    this.#session = response.headers.get('mcp-session-id') ?? '';
    for await (const _ of messagesOf(response)) break;
    const initialized = await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await initialized.body?.cancel();
    return this;
  }

  /** Starts a `tools/call`; its response stream, read as messages. */
  async call(name: string, args: Record<string, unknown> = {}): Promise<CallStream> {
    const id = this.#nextId++;
    const response = await this.post({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: args },
    });
    return new CallStream(id, messagesOf(response), this);
  }

  /** Answers a server-to-client request (an elicitation) with `result`, or an `error`. */
  async answer(request: Message, outcome: { result: unknown } | { error: unknown }): Promise<void> {
    const response = await this.post({ jsonrpc: '2.0', id: request.id, ...outcome });
    await response.body?.cancel();
    if (response.status >= 300) throw new Error(`answer: HTTP ${response.status}`);
  }
}

/** The response stream of one call: server-to-client requests on it, then the call's result. */
export class CallStream {
  readonly id: number;
  readonly #messages: AsyncGenerator<Message>;
  readonly #session: RawSession;

  constructor(id: number, messages: AsyncGenerator<Message>, session: RawSession) {
    this.id = id;
    this.#messages = messages;
    this.#session = session;
  }

  /** The next message on this call's stream (a request to the client, or the result). */
  async next(): Promise<Message> {
    const { value, done } = await this.#messages.next();
    if (done) throw new Error(`the stream of call ${this.id} ended without its result`);
    return value;
  }

  /** Reads until the call's result, answering each elicitation with `answer`. */
  async result(
    answer: (request: Message) => { result: unknown } | { error: unknown } = () => ({
      result: { action: 'decline' },
    }),
  ): Promise<Message> {
    for (;;) {
      const message = await this.next();
      if (message.id === this.id && (message.result || message.error)) return message;
      if (message.method === 'elicitation/create') {
        await this.#session.answer(message, answer(message));
      }
    }
  }
}

/** The text of a `tools/call` result message. */
export const resultText = (message: Message): string =>
  ((message.result?.content ?? []) as { text?: string }[]).map((b) => b.text ?? '').join('\n');
