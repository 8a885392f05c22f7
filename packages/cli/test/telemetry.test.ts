import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { exportAskedFor } from '../src/telemetry';
import { assertBuilt, cleanEnv, runCli, tempDir, writeConfig } from './helpers';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

// A stand-in OTLP/HTTP collector: it keeps what the bin posts to /v1/traces (JSON, as the
// exporter sends it). The bin, its exporter and the SDK are the real ones.
const received: { url: string; body: string }[] = [];
let collector: Server;
let endpoint: string;
beforeAll(async () => {
  assertBuilt();
  collector = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      received.push({ url: req.url ?? '', body });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => collector.close(resolve)));
beforeEach(() => {
  received.length = 0;
});

/** The spans the collector got: name and attributes as plain values. */
function spans(): { name: string; attributes: Record<string, unknown> }[] {
  const out: { name: string; attributes: Record<string, unknown> }[] = [];
  for (const { body } of received) {
    const payload = JSON.parse(body);
    for (const resource of payload.resourceSpans ?? []) {
      for (const scope of resource.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          const attributes: Record<string, unknown> = {};
          for (const a of span.attributes ?? []) {
            attributes[a.key] = Object.values(a.value ?? {})[0];
          }
          out.push({ name: span.name, attributes });
        }
      }
    }
  }
  return out;
}

describe('exporting traces from the command line', () => {
  it('OTEL_EXPORTER_OTLP_ENDPOINT: the call is exported as an execute_tool span before the bin exits', async () => {
    const { code } = await runCli(['call', 'list_dir', '{"path":"."}'], {
      env: cleanEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SERVICE_NAME: 'dsh-test' }),
    });
    expect(code).toBe(0);
    expect(received.every((r) => r.url === '/v1/traces')).toBe(true);
    expect(spans()).toContainEqual({
      name: 'execute_tool list_dir',
      attributes: expect.objectContaining({
        'gen_ai.tool.name': 'list_dir',
        'gen_ai.operation.name': 'execute_tool',
      }),
    });
    expect(received[0]?.body).toContain('dsh-test');
  });

  it("the config's telemetry.otlpEndpoint does the same without variables", async () => {
    const dir = tempDir();
    writeConfig(dir, { exampleTools: true, telemetry: { otlpEndpoint: endpoint } });
    const { code } = await runCli(['call', 'list_dir', '{"path":"."}'], { cwd: dir });
    expect(code).toBe(0);
    expect(spans().map((s) => s.name)).toContain('execute_tool list_dir');
    // The service is dsh-tools unless OTEL_SERVICE_NAME says otherwise.
    expect(received[0]?.body).toContain(
      '{"key":"service.name","value":{"stringValue":"dsh-tools"}}',
    );
  });

  it('without either, nothing is sent; OTEL_SDK_DISABLED and OTEL_TRACES_EXPORTER=none turn it off', async () => {
    for (const extra of [
      {},
      { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SDK_DISABLED: 'true' },
      { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_EXPORTER: 'none' },
    ]) {
      const { code } = await runCli(['call', 'list_dir', '{"path":"."}'], { env: cleanEnv(extra) });
      expect(code).toBe(0);
    }
    expect(received).toEqual([]);
  });

  it('a config endpoint that is not a URL is a config error naming the field', async () => {
    const dir = tempDir();
    const file = writeConfig(dir, { exampleTools: true, telemetry: { otlpEndpoint: 'not a url' } });
    const { code, stderr } = await runCli(['inspect'], { cwd: dir });
    expect(code).toBe(3);
    expect(stderr).toContain('telemetry.otlpEndpoint');
    expect(readFileSync(file, 'utf8')).toContain('not a url');
  });
});

describe('exportAskedFor', () => {
  it.each([
    [{}, undefined, undefined],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x' }, undefined, {}],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://x/v1/traces' }, undefined, {}],
    [{ OTEL_TRACES_EXPORTER: 'otlp' }, undefined, {}],
    [{ OTEL_TRACES_EXPORTER: 'console' }, undefined, undefined],
    [{}, 'http://c', { endpoint: 'http://c' }],
    [{ OTEL_SDK_DISABLED: 'true' }, 'http://c', undefined],
    [
      { OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x' },
      'http://c',
      undefined,
    ],
  ])('%j with config %j: %j', (env, config, expected) => {
    expect(exportAskedFor(env as NodeJS.ProcessEnv, config)).toEqual(expected);
  });
});
