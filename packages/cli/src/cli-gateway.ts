import type { Approver } from '@dsh-tools/protocol';
import { cErr, err, warn } from './cli-io';
import { type LoadedConfig, loadConfig } from './config';
import { defaultConfig } from './default-config';
import {
  type BuildGatewayOptions,
  buildGateway,
  type Gateway,
  type ServerProgressEvent,
} from './gateway';
import type { PolicyFactories } from './policies';

/**
 * The connection progress of the configured servers on stderr: one line rewritten in place on a
 * terminal, a line per server that failed otherwise (logs stay short).
 */
function progressReporter(total: number): {
  onServer: (event: ServerProgressEvent) => void;
  done: () => void;
} {
  const tty = err.isTTY === true;
  let finished = 0;
  const pending = new Set<string>();
  const draw = () => {
    if (!tty || total === 0) return;
    const names = [...pending].join(', ');
    err.write(
      `\r\x1b[K${cErr.dim(`connecting MCP servers ${finished}/${total}${names ? `: ${names}` : ''}`)}`,
    );
  };
  return {
    onServer(event) {
      if (event.phase === 'connecting') pending.add(event.server);
      else {
        pending.delete(event.server);
        finished++;
      }
      if (event.phase === 'failed') {
        if (tty) err.write('\r\x1b[K');
        err.write(
          `${cErr.red('error')} MCP server "${event.server}" failed to start: ${event.error.message}\n`,
        );
      }
      draw();
    },
    done() {
      if (tty && total > 0) err.write('\r\x1b[K');
    },
  };
}

/** Loads `--config` (or `./dsh-tools.json`, else the embedded default) and prints its warnings. */
export async function load(configFile: string | undefined): Promise<LoadedConfig> {
  const loaded = await loadConfig(configFile, { fallback: () => defaultConfig() });
  for (const warning of loaded.warnings) warn(warning);
  const endpoint = loaded.config.telemetry?.otlpEndpoint;
  if (endpoint) await (await import('./telemetry')).startTelemetry(process.env, endpoint);
  return loaded;
}

/** Builds the gateway of a loaded config, showing the servers' connection progress on stderr. */
export async function openGateway(
  loaded: LoadedConfig,
  recordTrails = false,
  approver?: Approver,
  policies?: PolicyFactories,
  perCall?: Pick<BuildGatewayOptions, 'askScope' | 'modeOf' | 'pins' | 'onError'>,
): Promise<Gateway> {
  const progress = progressReporter(Object.keys(loaded.config.mcpServers).length);
  try {
    return await buildGateway(loaded, {
      onServer: progress.onServer,
      recordTrails,
      ...(approver ? { approver } : {}),
      ...(policies ? { policies } : {}),
      ...perCall,
    });
  } finally {
    progress.done();
  }
}

/** The servers that failed to start, quoted and comma-separated, for a message. */
export function failedServersNote(gateway: Gateway): string {
  return gateway.failures.map((f) => `"${f.server}"`).join(', ');
}
