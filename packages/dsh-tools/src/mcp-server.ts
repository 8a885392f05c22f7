import type { Context } from '@deepseek-ai/cordis';
import {
  connectMcpServer,
  type McpServerConfig,
  type McpServerHandle,
  type McpStatusEvent,
} from '@dsh-tools/mcp-bridge';
import { nameLabel } from './label';
import type { ToolRegistry } from './tools-service';

declare module '@deepseek-ai/cordis' {
  interface Events {
    /**
     * A server loaded with the {@link McpServer} plugin changed status: `connected` once it is
     * up, then every change the bridge reports, up to `closed` when its plugin is disposed.
     * `server` is the bridge's handle (`tools`, `pid`, `stderrTail`, `refresh()`, `reconnect()`).
     */
    'mcp/status'(event: McpStatusEvent, server: McpServerHandle): void;
  }
}

/** The cordis plugin object of one MCP server; see {@link McpServer}. */
export interface McpServerPlugin {
  readonly name: 'mcp-server';
  readonly inject: string[];
  apply(ctx: Context, config: McpServerConfig): Promise<void>;
}

/**
 * A fiber of its own for the server's tools. cordis disposes a fiber's effects newest first, so
 * holding the tools in a child fiber created before the bridge makes the bridge close (and let go
 * of its tools) before the fiber holding them goes.
 */
const toolHolder = { apply(): void {} };

/**
 * One MCP server as a cordis plugin: `ctx.plugin(McpServer, { name, command, args })` (stdio) or
 * `ctx.plugin(McpServer, { name, url })` (Streamable HTTP), with the options of
 * `connectMcpServer` from `@dsh-tools/mcp-bridge`.
 *
 * It injects `tools` and connects through `connectMcpServer(ctx.tools, config)`, so the server's
 * tools are effects of the plugin's fiber, and the bridge's `close()` is an effect of it too:
 * disposing the plugin (or losing the `tools` service) closes the bridge first, which stops its
 * refreshes, unregisters its tools and kills the server's process group, and only then drops the
 * fiber that held the tools. The plugin's load settles once the server is up and its tools are
 * registered; a server that cannot start fails the plugin (`await ctx.plugin(…)` rejects, and
 * cordis logs it) with the bridge's message, which names the server and quotes its stderr.
 *
 * Problems the bridge contains (a failed background refresh, a skipped tool) go to `onError`, by
 * default to the cordis logger `mcp`. Status changes are the `mcp/status` event.
 */
export const McpServer: McpServerPlugin = {
  name: 'mcp-server',
  inject: ['tools'],
  async apply(ctx: Context, config: McpServerConfig): Promise<void> {
    if (typeof config !== 'object' || config === null) {
      throw new TypeError(
        `dsh-tools McpServer plugin: the config must be one server, { name, command, args } or { name, url } (got ${config === null ? 'null' : typeof config}). Pass it as ctx.plugin(McpServer, config).`,
      );
    }
    const logger = ctx.logger('mcp');
    let stopping = false;
    const given: unknown = config.onError;
    const onError =
      typeof given === 'function'
        ? (given as (error: Error) => void)
        : (error: Error) => logger.error(error.message);
    // The bridge checks the rest of the config (an `onError` that is not a function included) and
    // says what is wrong with it.
    const bridgeConfig: McpServerConfig =
      given !== undefined && typeof given !== 'function'
        ? config
        : {
            ...config,
            // While the plugin stops, a refusal from its disposed fiber is expected, not news.
            onError: (error: Error) => {
              if (!stopping) onError(error);
            },
          };
    const holder = ctx.plugin(toolHolder);
    const tools: ToolRegistry = holder.ctx.tools;
    const label = nameLabel(config);
    const connecting = ctx.effect(async () => {
      const handle = await connectMcpServer(tools, bridgeConfig);
      const emit = (event: McpStatusEvent): void => {
        ctx.parallel('mcp/status', event, handle).catch((error: unknown) => logger.error(error));
      };
      handle.on('status', emit);
      emit({ server: handle.name, status: 'connected', previous: 'connecting' });
      return () => handle.close();
    }, `McpServer(${label})`);
    // The newest effect goes first: from here on, nothing the bridge reports is news.
    ctx.effect(
      () => () => {
        stopping = true;
      },
      `McpServer(${label}): stopping`,
    );
    await connecting;
  },
};
