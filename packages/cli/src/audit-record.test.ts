import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { permissionInterceptor } from '@dsh-tools/interceptors-permission';
import { textContent } from '@dsh-tools/protocol';
import { createToolRegistry } from '@dsh-tools/registry';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { AuditLog } from './audit-log';
import { argumentsDigest, attachAudit, redactArguments } from './audit-record';
import { verifyAuditFiles } from './audit-verify';
import { auditVerifyCommand } from './command-audit';

const dir = mkdtempSync(join(tmpdir(), 'dsh-audit-record-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const read = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

function gateway(approve: 'allow' | 'deny' = 'allow') {
  const file = join(dir, `audit-${n++}.jsonl`);
  const log = new AuditLog({ file, fsync: 'never' });
  const registry = createToolRegistry();
  registry.register({
    name: 'write_file',
    description: 'Writes a file',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string' }, content: { type: 'string' } },
      required: ['path'],
    },
    hints: { paths: [{ arg: 'path', access: 'write' }] },
    execute: () => [textContent('written')],
  });
  const audit = attachAudit(registry, {
    log,
    identityOf: (exec) => (exec as { identity?: string }).identity,
  });
  registry.use(
    permissionInterceptor({
      cwd: dir,
      rules: [
        {
          source: 'team config',
          file: '/srv/dsh-tools.json',
          allow: ['Edit(./docs/**)'],
          ask: ['Edit(./src/**)'],
          deny: ['Edit(./.env)'],
        },
      ],
      approve: async () => ({ kind: approve }),
      onDecision: audit.onPermissionDecision,
    }),
    { name: 'permission' },
  );
  return { file, log, registry };
}

describe('attachAudit: a line per call, with who, what, which rule and how it ended', () => {
  it('records allowed, denied, asked and refused calls through a real registry and policy', async () => {
    const { file, log, registry } = gateway();
    const call = (callId: string, name: string, args: object) =>
      registry.execute({ callId, name, arguments: args, identity: 'alice' } as never);
    await call('c1', 'write_file', { path: 'docs/a.md', content: 'x' });
    await call('c2', 'write_file', { path: '.env', content: 'x' });
    await call('c3', 'write_file', { path: 'src/a.ts', content: 'x' });
    await call('c4', 'write_fiel', { path: 'a' });
    await call('c5', 'write_file', { content: 'no path' });
    log.close();
    const lines = read(file);
    expect(lines.map((l) => [l.callId, l.identity, l.tool, l.status, l.errorCode])).toEqual([
      ['c1', 'alice', 'write_file', 'ok', undefined],
      ['c2', 'alice', 'write_file', 'error', 'DENIED'],
      ['c3', 'alice', 'write_file', 'ok', undefined],
      ['c4', 'alice', 'write_fiel', 'error', 'UNKNOWN_TOOL'],
      ['c5', 'alice', 'write_file', 'error', 'INVALID_ARGS'],
    ]);
    expect(lines[0].decision).toMatchObject({
      layer: 'permission',
      behavior: 'allow',
      kind: 'rule',
      rule: 'Edit(./docs/**)',
      origin: { source: 'team config', file: '/srv/dsh-tools.json' },
    });
    expect(lines[1].decision).toMatchObject({ behavior: 'deny', rule: 'Edit(./.env)' });
    expect(lines[2].decision).toMatchObject({
      behavior: 'ask',
      rule: 'Edit(./src/**)',
      answer: 'allow',
      approvedBy: 'person',
    });
    expect(lines[3].decision).toEqual({ layer: 'registry', behavior: 'deny' });
    expect(lines[4].decision).toEqual({ layer: 'registry', behavior: 'deny' });
    for (const line of lines) expect(line.durationMs).toBeGreaterThanOrEqual(0);
    expect(lines[0].argsDigest).toBe(argumentsDigest({ content: 'x', path: 'docs/a.md' }));
    expect(await verifyAuditFiles([file])).toMatchObject({ ok: true, lines: 5 });
  });

  it('a person who refuses is recorded as such', async () => {
    const { file, log, registry } = gateway('deny');
    await registry.execute({ callId: 'c1', name: 'write_file', arguments: { path: 'src/a.ts' } });
    log.close();
    expect(read(file)[0]).toMatchObject({
      status: 'error',
      errorCode: 'DENIED',
      decision: { behavior: 'ask', answer: 'deny' },
    });
    expect(read(file)[0].decision.approvedBy).toBeUndefined();
  });

  it('a line the disk refuses goes to onError and the call result is unchanged', async () => {
    const registry = createToolRegistry();
    registry.register({
      name: 'echo',
      description: 'Echoes',
      parameters: { type: 'object', properties: {} },
      execute: () => [textContent('hi')],
    });
    const log = new AuditLog({ file: join(dir, `closed-${n++}.jsonl`), fsync: 'never' });
    log.close();
    const onError = vi.fn();
    attachAudit(registry, { log, onError });
    const result = await registry.execute({ callId: 'c1', name: 'echo', arguments: {} });
    expect(result.isError).toBe(false);
    expect(String(onError.mock.calls[0]?.[0])).toMatch(/is closed/);
  });
});

describe('detach', () => {
  it('removes the timing interceptor and the observer: no line is written afterwards', async () => {
    const registry = createToolRegistry();
    registry.register({
      name: 'echo',
      description: 'Echoes',
      parameters: { type: 'object', properties: {} },
      execute: () => [textContent('hi')],
    });
    let disposed = 0;
    const counting = {
      on: registry.on,
      use: (...args: Parameters<typeof registry.use>) => {
        const dispose = registry.use(...args);
        return () => {
          disposed++;
          dispose();
        };
      },
    } as Pick<typeof registry, 'use' | 'on'>;
    const file = join(dir, `detach-${n++}.jsonl`);
    const log = new AuditLog({ file, fsync: 'never' });
    const audit = attachAudit(counting, { log });
    await registry.execute({ callId: 'c1', name: 'echo', arguments: {} });
    audit.detach();
    await registry.execute({ callId: 'c2', name: 'echo', arguments: {} });
    log.close();
    expect(disposed).toBe(1);
    expect(read(file).map((l) => l.callId)).toEqual(['c1']);
  });
});

describe('redaction and digests', () => {
  it('redacts secrets by name and by look, cuts long strings, keeps the rest', () => {
    const redacted = redactArguments({
      path: 'src/a.ts',
      password: 'hunter2',
      headers: { Authorization: 'Bearer abc.def.ghi', 'x-api-key': 'k' },
      command: 'curl -H "Authorization: Bearer eyJhbGciOi.JIUzI1" https://user:pa55w0rd@host/x',
      key: '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----',
      env: 'OPENAI=sk-proj-abcdefghijklmnop1234 GH=ghp_abcdefghijklmnopqrstuvwxyz0123 AWS=AKIAIOSFODNN7EXAMPLE',
      content: 'y'.repeat(5000),
    }) as Record<string, unknown>;
    const text = JSON.stringify(redacted);
    for (const secret of [
      'hunter2',
      'abc.def.ghi',
      'eyJhbGciOi',
      'pa55w0rd',
      'b3BlbnNzaC1rZXk',
      'sk-proj',
      'ghp_',
      'AKIAIOSFODNN7EXAMPLE',
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(redacted.path).toBe('src/a.ts');
    expect(redacted.command).toContain('https://user:[redacted]@host/x');
    expect(String(redacted.content)).toMatch(/^y{1024}… \[3976 more characters\]$/);
  });

  it('never writes a value held under a secret name, at any depth (property)', () => {
    const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
    console.log(`redaction property: FC_SEED=${seed}`);
    const secretKey = fc.constantFrom(
      'password',
      'apiKey',
      'api_key',
      'token',
      'clientSecret',
      'authorization',
      'privateKey',
      'Cookie',
    );
    fc.assert(
      fc.property(
        fc.array(fc.string({ minLength: 1, maxLength: 8 }), { maxLength: 6 }),
        secretKey,
        fc.uuid(),
        (path, key, uuid) => {
          const secret = `S3cr3t-${uuid}`;
          let args: Record<string, unknown> = { [key]: secret };
          for (const segment of path) args = { [`k_${segment}`]: args };
          expect(JSON.stringify(redactArguments(args))).not.toContain(secret);
        },
      ),
      { seed, numRuns: 300 },
    );
  });

  it('the digest does not depend on key order and does depend on every value', () => {
    expect(argumentsDigest({ a: 1, b: { c: [1, 2], d: 'x' } })).toBe(
      argumentsDigest({ b: { d: 'x', c: [1, 2] }, a: 1 }),
    );
    expect(argumentsDigest({ a: 1 })).not.toBe(argumentsDigest({ a: 2 }));
    expect(argumentsDigest({ a: [1, 2] })).not.toBe(argumentsDigest({ a: [2, 1] }));
  });
});

describe('dsh-tools audit verify', () => {
  it('exits 0 on a sound trail and 1 on a broken one, naming the file and line', async () => {
    const { file, log, registry } = gateway();
    for (let i = 0; i < 3; i++) {
      await registry.execute({
        callId: `c${i}`,
        name: 'write_file',
        arguments: { path: 'docs/a' },
      });
    }
    log.close();
    const written: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    try {
      expect(await auditVerifyCommand([file], {})).toBe(0);
      expect(written.join('')).toMatch(/ok {2}3 lines chain/);
      const text = readFileSync(file, 'utf8').replace('"c1"', '"c9"');
      const { writeFileSync } = await import('node:fs');
      writeFileSync(file, text);
      written.length = 0;
      expect(await auditVerifyCommand([file], {})).toBe(1);
      expect(written.join('')).toContain(`${file}:3:`);
      written.length = 0;
      expect(await auditVerifyCommand([file], { json: true })).toBe(1);
      expect(JSON.parse(written.join(''))).toMatchObject({ ok: false, broken: { file, line: 3 } });
    } finally {
      spy.mockRestore();
    }
  });
});
