import { type McpServerFactory, Server } from '@modelcontextprotocol/server';
import type { Gateway } from './gateway';
import type { ElicitationApprovals } from './serve-ask';
import { createGatewayServerFactory } from './serve-factory';
import { leanToolCalls } from './serve-lean-calls';
import { createStdioWire, type StdioWireOptions } from './serve-stdio-wire';

/** Options of {@link serveGatewayStdio}. */
export interface ServeStdioOptions {
  /** Out-of-band errors of the transport (default: dropped). */
  readonly onError?: (error: Error) => void;
  /** Where the policies' questions go (the gateway must have been built with its approver). */
  readonly approvals?: ElicitationApprovals;
  /** The streams served (default: this process's stdin and stdout). */
  readonly streams?: StdioWireOptions;
}

/**
 * Serves the gateway over this process's stdin/stdout. Resolves when the client closes stdin (or
 * `stop()` is called); the gateway itself is left for the caller to close. Given a gateway still
 * starting (a promise), the handshake is answered at once and tool requests wait for it.
 */
export async function serveGatewayStdio(
  gateway: Gateway | Promise<Gateway>,
  options: ServeStdioOptions = {},
): Promise<{
  readonly done: Promise<void>;
  stop(): Promise<void>;
}> {
  const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
  const made = createGatewayServerFactory(gateway, options.approvals);
  // The instance of a 2025-era connection: its tools/call requests take the lean path once it is
  // initialized (a 2026-07-28 one keeps the SDK's per-request envelope and state handling).
  let legacy: Server | undefined;
  const factory: McpServerFactory = async (ctx) => {
    const product = await made.factory(ctx);
    if (ctx.era === 'legacy' && product instanceof Server) legacy = product;
    return product;
  };
  const stdin = options.streams?.stdin ?? process.stdin;
  const transport = leanToolCalls(createStdioWire(options.streams), {
    server: () =>
      legacy?.transport !== undefined && legacy.getClientCapabilities() !== undefined
        ? legacy
        : undefined,
    callTool: made.callTool,
    handOver: made.handOver,
  });
  const handle = serveStdio(factory, { transport, onerror: (e) => options.onError?.(e) });
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      made.dispose();
      await handle.close().catch(() => {});
      finish();
    })();
    return stopping;
  };
  stdin.once('end', () => void stop());
  stdin.once('close', () => void stop());
  return { done, stop };
}
