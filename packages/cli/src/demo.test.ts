import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DemoServerError,
  demoTranscript,
  runDemo,
  scriptedApprover,
  writeDemoWorkspace,
} from './demo';

describe('the demo', () => {
  it('scripts every scenario the issue names, each with the outcome it expects', () => {
    const calls = demoTranscript().flatMap((turn) => turn.calls);
    expect(demoTranscript()[0]?.calls.length).toBeGreaterThan(1);
    expect(calls.map((c) => c.expect)).toEqual(
      expect.arrayContaining(['ok', 'DENIED', 'SANDBOX_VIOLATION', 'TIMEOUT']),
    );
    expect(calls.map((c) => c.tool)).toContain('mcp__notes__note_card');
  });

  it('a server that does not start ends the demo with DemoServerError naming it', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-demo-unit-')));
    const config = await writeDemoWorkspace(dir);
    const parsed = JSON.parse(readFileSync(config, 'utf8'));
    parsed.mcpServers.notes.args = [join(dir, 'no-such-server.mjs')];
    writeFileSync(config, JSON.stringify(parsed));
    const run = runDemo({
      workspace: dir,
      config,
      approver: { approve: scriptedApprover(), by: 'scripted' },
    });
    await expect(run).rejects.toBeInstanceOf(DemoServerError);
    await expect(run).rejects.toThrow(/"notes" did not start/);
  }, 60_000);
});
