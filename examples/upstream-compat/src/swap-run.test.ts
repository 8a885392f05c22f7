/**
 * The swap itself: the harness's composition, untouched (it loads `ToolRuntime` from
 * `@deepseek-ai/dsh-tools`, and so do the agent loop and every tool plugin), in a process where
 * that name resolves to `dsh-tools/harness`. It runs the whole script and records what ours
 * records in place, down to the schemas the model is offered. Loads the built package: CI builds
 * first (`pnpm build`), and so must a local run.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { runScript, type Transcript } from '../test/agent-loop';

const dir = fileURLToPath(new URL('..', import.meta.url));
let swapped: Transcript;
let inPlace: Transcript;
let upstream: Transcript;

beforeAll(async () => {
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--import', './test/swap-register.mjs', './test/swap-child.ts'],
    { cwd: dir, encoding: 'utf8', timeout: 60_000 },
  );
  if (run.status !== 0) {
    throw new Error(`the swapped run failed (run 'pnpm build' first):\n${run.stderr}`);
  }
  swapped = JSON.parse(run.stdout) as Transcript;
  inPlace = await runScript('ours');
  upstream = await runScript('upstream');
}, 90_000);

describe('@deepseek-ai/dsh-tools swapped for dsh-tools/harness', () => {
  it('runs the harness composition unchanged, as ours runs in place', () => {
    expect(swapped.events.map((e) => e.type)).toEqual(upstream.events.map((e) => e.type));
    expect(swapped.files).toEqual(upstream.files);
    // The tool plugins now build their schemas with our defineTool: the model is offered the
    // same tools, with the same request headers (schemas byte for byte) as upstream's.
    expect(swapped.offered).toEqual(upstream.offered);
    const headers = (t: Transcript) => t.events.filter((e) => e.type === 'request/header');
    expect(JSON.stringify(headers(swapped))).toBe(JSON.stringify(headers(upstream)));
    expect(swapped.violations).toEqual([]);
    expect(swapped).toEqual(inPlace);
  });
});
