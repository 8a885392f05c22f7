import { spawn } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { AuditLog, GENESIS, lineHash } from './audit-log';
import { verifyAuditFiles } from './audit-verify';

const dir = mkdtempSync(join(tmpdir(), 'dsh-audit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(dir, `trail-${n++}.jsonl`);
const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);

/** A trail of `count` call lines. */
function trail(count: number, file = fresh()): string {
  const log = new AuditLog({ file, fsync: 'never', now: () => 1_700_000_000_000 });
  for (let i = 0; i < count; i++) log.append({ kind: 'call', tool: `t${i}`, callId: `c${i}` });
  log.close();
  return file;
}

describe('the audit log: a hash chain', () => {
  it('chains each line to the one before, from the genesis hash, and verifies', async () => {
    const file = trail(5);
    const parsed = lines(file).map((l) => JSON.parse(l));
    expect(parsed.map((l) => l.seq)).toEqual([0, 1, 2, 3, 4]);
    expect(parsed[0].prev).toBe(GENESIS);
    for (let i = 1; i < 5; i++) expect(parsed[i].prev).toBe(lineHash(lines(file)[i - 1] as string));
    const result = await verifyAuditFiles([file]);
    expect(result).toMatchObject({ ok: true, lines: 5, notes: [] });
    expect(result.head).toBe(lineHash(lines(file)[4] as string));
  });

  it('goes on with the chain when opened again', async () => {
    const file = trail(3);
    const log = new AuditLog({ file, fsync: 'always' });
    expect(log.append({ kind: 'call', tool: 'x' }).seq).toBe(3);
    log.close();
    expect(await verifyAuditFiles([file])).toMatchObject({ ok: true, lines: 4 });
  });

  it('keeps its own chain fields whatever a record holds', () => {
    const file = fresh();
    const log = new AuditLog({ file, fsync: 'never' });
    const line = log.append({ kind: 'call', seq: 99, prev: 'forged', time: 'then' } as never);
    log.close();
    expect(line).toMatchObject({ seq: 0, prev: GENESIS });
    expect(line.time).not.toBe('then');
  });

  it('refuses to append after close, and to open a file that is not a trail, saying what to do', () => {
    const file = trail(1);
    const log = new AuditLog({ file, fsync: 'never' });
    log.close();
    expect(() => log.append({ kind: 'call' })).toThrow(`The audit trail ${file} is closed.`);
    const other = fresh();
    writeFileSync(other, '{"hello":"world"}\n');
    expect(() => new AuditLog({ file: other })).toThrow(/not an audit trail.*audit verify/);
    expect(() => new AuditLog({ file: join(dir, 'no', 'such', 'dir', 'x') })).toThrow(
      /cannot be opened.*Check the path/,
    );
  });
});

describe('tampering: every kind of change breaks the chain where it is', () => {
  const edits: [string, (l: string[]) => string[], number][] = [
    // A changed line shows at the next one, whose "prev" no longer matches it.
    ['a field changed', (l) => l.map((x, i) => (i === 3 ? x.replace('"t3"', '"rm"') : x)), 5],
    ['a line removed', (l) => l.filter((_, i) => i !== 2), 3],
    ['a line inserted (a copy)', (l) => [...l.slice(0, 2), l[1] as string, ...l.slice(2)], 3],
    ['two lines swapped', (l) => [l[0], l[2], l[1], ...l.slice(3)] as string[], 2],
    ['the first line removed', (l) => l.slice(1), 1],
    [
      'whitespace added inside a line',
      (l) => l.map((x, i) => (i === 4 ? x.replace(':', ': ') : x)),
      6,
    ],
    [
      'a forged line with a correct prev',
      (l) => {
        const prev = lineHash(l[5] as string);
        return [
          ...l.slice(0, 6),
          JSON.stringify({ seq: 6, time: 'x', prev, kind: 'call', tool: 'forged' }),
          ...l.slice(6),
        ];
      },
      8,
    ],
    [
      'the last line changed',
      (l) => [...l.slice(0, -1), (l.at(-1) as string).replace('"t7"', '"t8"')],
      8,
    ],
    [
      'a line that is not JSON in the middle',
      (l) => [...l.slice(0, 4), 'garbage', ...l.slice(4)],
      5,
    ],
    ['an empty line in the middle', (l) => [...l.slice(0, 4), '', ...l.slice(4)], 5],
  ];

  it.each(edits)('%s', async (_name, edit, line) => {
    const file = trail(8);
    writeFileSync(file, `${edit(lines(file)).join('\n')}\n`);
    const result = await verifyAuditFiles([file]);
    if (_name === 'the last line changed') {
      // Changing the last line leaves no later line to notice: the head differs.
      expect(result.ok).toBe(true);
      expect(result.head).not.toBe(lineHash(lines(trail(8))[7] as string));
      return;
    }
    expect(result.ok).toBe(false);
    expect(result.broken).toMatchObject({ file, line });
  });

  it('the unchanged trail verifies (so the failures above are the edits)', async () => {
    expect((await verifyAuditFiles([trail(8)])).ok).toBe(true);
  });
});

describe('crashes', () => {
  it('a partial last line: verify notes it, the next writer adds a recovery line naming it', async () => {
    const file = trail(3);
    appendFileSync(file, '{"seq":3,"time":"2026-');
    const before = await verifyAuditFiles([file]);
    expect(before.ok).toBe(true);
    expect(before.notes.join()).toMatch(/:4: its last line is partial/);
    const log = new AuditLog({ file, fsync: 'never' });
    log.append({ kind: 'call', tool: 'after' });
    log.close();
    const recovery = JSON.parse(lines(file)[4] as string);
    expect(recovery).toMatchObject({ kind: 'recovery', seq: 3, tornBytes: 22 });
    const after = await verifyAuditFiles([file]);
    expect(after).toMatchObject({ ok: true, lines: 5 });
    expect(after.notes.join()).toMatch(/:4: a partial line \(22 bytes\)/);
    // The fragment cannot be changed afterwards: the recovery line names its hash.
    writeFileSync(file, readFileSync(file, 'utf8').replace('"time":"2026-', '"time":"2025-'));
    expect(await verifyAuditFiles([file])).toMatchObject({ ok: false, broken: { line: 4 } });
  });

  it('a last line or a partial one longer than the first window read still resumes the chain', async () => {
    const file = fresh();
    const log = new AuditLog({ file, fsync: 'never' });
    log.append({ kind: 'call', tool: 'small' });
    // Many keys, each under the per-string cut: 1.2 MB in one line.
    log.append({
      kind: 'call',
      args: Object.fromEntries(Array.from({ length: 12000 }, (_, i) => [`k${i}`, 'x'.repeat(100)])),
    });
    log.close();
    const again = new AuditLog({ file, fsync: 'never' });
    expect(again.append({ kind: 'call', tool: 'after' }).seq).toBe(2);
    again.close();
    expect(await verifyAuditFiles([file])).toMatchObject({ ok: true, lines: 3 });
    // A crash left 1.5 MiB of a line: a recovery line names it, the chain goes on (seq 3).
    appendFileSync(file, `{"seq":3,"pad":"${'y'.repeat(1536 * 1024)}`);
    const third = new AuditLog({ file, fsync: 'never' });
    third.close();
    const last = JSON.parse(lines(file).at(-1) as string);
    expect(last).toMatchObject({ kind: 'recovery', seq: 3, tornBytes: 1536 * 1024 + 16 });
    expect(await verifyAuditFiles([file])).toMatchObject({ ok: true, lines: 4 });
  });

  it('kill -9 while writing as fast as it can loses no line it wrote and the chain holds', async () => {
    const file = fresh();
    const module = fileURLToPath(new URL('./audit-log.ts', import.meta.url));
    const script = `import { AuditLog } from ${JSON.stringify(module)};
      const log = new AuditLog({ file: ${JSON.stringify(file)}, fsync: 'never' });
      for (let i = 0; ; i++) log.append({ kind: 'call', tool: 't', args: { i, text: 'x'.repeat(i % 3000) } });`;
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      {
        stdio: 'ignore',
      },
    );
    await new Promise<void>((resolve, reject) => {
      const poll = setInterval(() => {
        if (existsSync(file) && statSync(file).size > 2_000_000) {
          clearInterval(poll);
          child.kill('SIGKILL');
          resolve();
        }
      }, 5);
      child.on('exit', () => {
        clearInterval(poll);
        if (!child.killed) reject(new Error('the writer exited by itself'));
      });
    });
    await new Promise((resolve) => child.once('close', resolve));
    const result = await verifyAuditFiles([file]);
    expect(result.ok).toBe(true);
    expect(result.lines).toBeGreaterThan(100);
    // The next writer chains on, whether or not the kill tore a line.
    const log = new AuditLog({ file, fsync: 'always' });
    log.append({ kind: 'call', tool: 'after-crash' });
    log.close();
    const again = await verifyAuditFiles([file]);
    expect(again.ok).toBe(true);
    expect(again.lines).toBeGreaterThan(result.lines);
  }, 60_000);
});

describe('rotation by size', () => {
  it('renames the full file, starts a new one with a rotate line, and the chain runs across', async () => {
    const file = join(mkdtempSync(join(dir, 'rot-')), 'audit.jsonl');
    const log = new AuditLog({ file, maxBytes: 1000, fsync: 'never' });
    for (let i = 0; i < 40; i++) log.append({ kind: 'call', tool: `t${i}`, pad: 'x'.repeat(50) });
    log.close();
    const folder = join(file, '..');
    const rotated = readdirSync(folder)
      .filter((f) => f !== 'audit.jsonl')
      .sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop()))
      .map((f) => join(folder, f));
    expect(rotated.length).toBeGreaterThan(2);
    for (const f of [...rotated, file]) expect(statSync(f).size).toBeLessThanOrEqual(1000);
    const all = await verifyAuditFiles([...rotated, file]);
    expect(all.ok).toBe(true);
    expect(all.lines).toBe(40 + rotated.length);
    // The current file alone verifies from its rotate line on, and says so.
    const alone = await verifyAuditFiles([file]);
    expect(alone.ok).toBe(true);
    expect(alone.notes.join()).toMatch(
      /continues the chain of audit\.jsonl\.\d+, which was not given/,
    );
    // Given in the wrong order, the rotate line says which file should come first.
    const wrong = await verifyAuditFiles([rotated[1] as string, rotated[0] as string, file]);
    expect(wrong.ok).toBe(false);
  });
});
