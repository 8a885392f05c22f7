import { warn } from './cli-io';

// Exporting traces is opt-in and costs the command line nothing until asked for: the OTLP exporter
// and the Node SDK are optional peer dependencies, loaded only when the standard OpenTelemetry
// variables (or the config's `telemetry` section) say to export. Every library of ours depends on
// `@opentelemetry/api` only, so a process that exports nothing records nothing.

interface Started {
  shutdown(): Promise<void>;
}
let started: Started | undefined;
let starting: Promise<void> | undefined;

/** The OTLP endpoint asked for, if any: the config's, else the standard variables'. */
export function exportAskedFor(
  env: NodeJS.ProcessEnv,
  configEndpoint?: string,
): { endpoint?: string } | undefined {
  if (env.OTEL_SDK_DISABLED === 'true') return undefined;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((s) => s.trim());
  if (exporters.includes('none')) return undefined;
  if (configEndpoint) return { endpoint: configEndpoint };
  if (exporters.includes('otlp')) return {};
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT) return {};
  return undefined;
}

/**
 * Starts exporting spans over OTLP/HTTP when asked for (see {@link exportAskedFor}); once per
 * process. The exporter reads the rest of its settings (headers, timeout, protocol) from the
 * standard `OTEL_EXPORTER_OTLP_*` variables; the service is `dsh-tools` unless `OTEL_SERVICE_NAME`
 * (or `OTEL_RESOURCE_ATTRIBUTES`) names it. Without the optional packages installed, says which to install and goes on
 * without traces: tracing is for looking, never a reason for a command to fail.
 */
export async function startTelemetry(
  env: NodeJS.ProcessEnv,
  configEndpoint?: string,
): Promise<void> {
  const asked = exportAskedFor(env, configEndpoint);
  if (!asked || started) return;
  starting ??= (async () => {
    let node: typeof import('@opentelemetry/sdk-trace-node');
    let otlp: typeof import('@opentelemetry/exporter-trace-otlp-http');
    let resources: typeof import('@opentelemetry/resources');
    try {
      [node, otlp, resources] = await Promise.all([
        import('@opentelemetry/sdk-trace-node'),
        import('@opentelemetry/exporter-trace-otlp-http'),
        import('@opentelemetry/resources'),
      ]);
    } catch {
      warn(
        'traces are asked for (OpenTelemetry variables or the config\'s "telemetry"), but the exporter is not installed: npm install @opentelemetry/sdk-trace-node@2 @opentelemetry/resources@2 @opentelemetry/exporter-trace-otlp-http@0.215 next to dsh-tools (with -g for a global install). Going on without traces.',
      );
      return;
    }
    const url = asked.endpoint ? `${asked.endpoint.replace(/\/+$/, '')}/v1/traces` : undefined;
    const exporter = new otlp.OTLPTraceExporter(url ? { url } : {});
    // service.name: OTEL_SERVICE_NAME (and OTEL_RESOURCE_ATTRIBUTES) when set, else dsh-tools.
    const resource = resources
      .defaultResource()
      .merge(resources.resourceFromAttributes({ 'service.name': 'dsh-tools' }))
      .merge(resources.detectResources({ detectors: [resources.envDetector] }));
    const provider = new node.NodeTracerProvider({
      resource,
      spanProcessors: [new node.BatchSpanProcessor(exporter)],
    });
    // The global provider, the async context manager and the W3C propagator: spans nest across
    // awaits, and trace context goes to MCP servers in params._meta.
    provider.register();
    started = { shutdown: () => provider.shutdown() };
  })();
  await starting;
}

/** Flushes and stops the exporter (before the process exits); a failure is a warning. */
export async function stopTelemetry(): Promise<void> {
  const running = started;
  started = undefined;
  starting = undefined;
  if (!running) return;
  try {
    await running.shutdown();
  } catch (error) {
    warn(
      `could not send the last traces: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
