/**
 * One policy, two enforcement points: the permission rules' path denies and network rules narrow
 * the sandbox every process of a call runs in. Here the analyzer's verdict is taken out of the
 * way on purpose (every question is answered "allow"), and commands that hide what they do
 * (interpreters, eval, indirection) still cannot read `.env` or `secrets/`, write `src/`, or
 * reach a loopback listener, although the sandbox itself allows the network. Each attack first
 * runs with plain bash to show its harm.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { promisify } from 'node:util';
import { defineTool } from '@dsh-tools/define-tool';
import { permissionInterceptor } from '@dsh-tools/interceptors-permission';
import { findBwrap, requireSandbox, sandboxInterceptor } from '@dsh-tools/interceptors-sandbox';
import { createToolRegistry } from '@dsh-tools/registry';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

const NO_BWRAP = findBwrap() === undefined && process.env.CI !== 'true';
const ENV_SECRET = 'env-canary-51c0';
const KEY_SECRET = 'key-canary-a7d2';

let base: string;
let ws: string;
let server: Server;
let port = 0;
let connections = 0;

beforeAll(async () => {
  base = await realpath(await mkdtemp(`${existsSync('/var/tmp') ? '/var/tmp' : '/tmp'}/dsh-two-`));
  server = createServer((s) => {
    connections++;
    s.end('hello\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await rm(base, { recursive: true, force: true });
});

beforeEach(async () => {
  ws = `${base}/ws-${Math.random().toString(36).slice(2)}`;
  await mkdir(`${ws}/src`, { recursive: true });
  await mkdir(`${ws}/secrets`);
  await writeFile(`${ws}/.env`, `TOKEN=${ENV_SECRET}\n`);
  await writeFile(`${ws}/secrets/key`, `${KEY_SECRET}\n`);
  await writeFile(`${ws}/src/x.ts`, 'export const x = 1;\n');
  await writeFile(`${ws}/README.md`, '# readme\n');
  connections = 0;
});

/** A shell tool that runs its command only through the sandbox's runner. */
const bashTool = () =>
  defineTool({
    name: 'bash',
    description: 'Run a shell command',
    parameters: { command: { type: 'string', required: true } },
    hints: { command: 'command' },
    async execute({ command }, exec) {
      const run = await requireSandbox(exec).run(['bash', '-c', command], { timeoutMs: 15_000 });
      return [{ type: 'text', text: `${run.stdout}${run.stderr}exit ${run.exitCode}` }];
    },
  });

function registryFor(cwd: string) {
  const registry = createToolRegistry();
  registry.use(sandboxInterceptor({ mode: 'workspace-write', cwd, network: true }), {
    name: 'sandbox',
  });
  const questions: string[] = [];
  const permission = permissionInterceptor({
    cwd,
    rules: {
      allow: ['Bash(echo:*)', 'Bash(cat:*)', 'Read(./**)'],
      deny: ['Read(./.env)', 'Read(./secrets/**)', 'Edit(./src/**)', 'Bash(curl:*)'],
    },
    // The analyzer's verdict disabled: whatever it would ask, a person allows.
    approve: async (request) => {
      questions.push(request.reason ?? '');
      return { kind: 'allow' };
    },
  });
  registry.use(permission, { name: 'permission' });
  registry.register(bashTool());
  return { registry, permission, questions };
}

const reads = [
  `python3 -c "print(open('.env').read())"`,
  `node -e "process.stdout.write(require('fs').readFileSync('.env', 'utf8'))"`,
  `perl -ne print .env`,
  'awk 1 .en""v',
  'x=.env; cat "$x"',
  `eval "cat .e""nv"`,
  'cat secrets/key',
  'base64 .env | base64 -d',
  'cp .env /tmp/y && cat /tmp/y',
  'tar cf - .env secrets | tar xOf -',
  `node -e "const fs = require('fs'); for (const f of fs.readdirSync('secrets')) console.log(fs.readFileSync('secrets/' + f, 'utf8'))"`,
  'grep -r canary . 2>/dev/null',
];
const writes = [
  `node -e "require('fs').writeFileSync('src/x.ts', 'pwned')"`,
  `python3 -c "open('src/x.ts', 'w').write('pwned')"`,
  `eval 'echo pwned > src/x.ts'`,
  'sed -i s/x/pwned/ src/x.ts',
  `perl -pi -e 's/.*/pwned/' src/x.ts`,
  'cp README.md src/x.ts',
  'touch src/new.ts',
  'mv src/x.ts src/y.ts',
  'rm -f src/x.ts',
  'mv src src2',
];
const network = [
  `node -e "require('net').connect(PORT, '127.0.0.1').on('data', d => console.log(String(d))).on('error', e => console.log(e.code))"`,
  `bash -c 'exec 3<>/dev/tcp/127.0.0.1/PORT && cat <&3'`,
  `python3 -c "import socket; s = socket.create_connection(('127.0.0.1', PORT)); print(s.recv(10))"`,
  `perl -MIO::Socket::INET -e 'my $s = IO::Socket::INET->new("127.0.0.1:PORT") or die "refused\\n"; print <$s>'`,
];

const srcUnchanged = async () => {
  try {
    return (
      (await readdir(`${ws}/src`)).join() === 'x.ts' &&
      (await readFile(`${ws}/src/x.ts`, 'utf8')) === 'export const x = 1;\n'
    );
  } catch {
    return false;
  }
};

describe.skipIf(NO_BWRAP)('permission narrows the sandbox of every call it lets through', () => {
  it.each(reads)('read: %s', async (command) => {
    const plain = spawnSync('bash', ['-c', command], {
      cwd: ws,
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(plain.stdout).toMatch(new RegExp(`${ENV_SECRET}|${KEY_SECRET}`));
    const { registry } = registryFor(ws);
    const r = await registry.execute({ callId: 'r', name: 'bash', arguments: { command } });
    const text = JSON.stringify(r.content);
    expect(text).not.toContain(ENV_SECRET);
    expect(text).not.toContain(KEY_SECRET);
  });

  it.each(writes)('write: %s', async (command) => {
    spawnSync('bash', ['-c', command], { cwd: ws, timeout: 15_000 });
    expect(await srcUnchanged()).toBe(false);
    await rm(ws, { recursive: true, force: true });
    await mkdir(`${ws}/src`, { recursive: true });
    await writeFile(`${ws}/src/x.ts`, 'export const x = 1;\n');
    await writeFile(`${ws}/README.md`, '# readme\n');
    const { registry } = registryFor(ws);
    await registry.execute({ callId: 'w', name: 'bash', arguments: { command } });
    expect(await srcUnchanged()).toBe(true);
  });

  it.each(network)('network: %s', async (template) => {
    const command = template.replaceAll('PORT', String(port));
    // Not spawnSync: the listener answering is on this event loop.
    await promisify(execFile)('bash', ['-c', command], { cwd: ws, timeout: 15_000 }).catch(
      () => {},
    );
    expect(connections).toBeGreaterThan(0);
    connections = 0;
    const { registry } = registryFor(ws);
    await registry.execute({ callId: 'n', name: 'bash', arguments: { command } });
    expect(connections).toBe(0);
  });

  it('without the permission rules, the same sandbox lets the secret through (the narrowing does the work)', async () => {
    const registry = createToolRegistry();
    registry.use(sandboxInterceptor({ mode: 'workspace-write', cwd: ws, network: true }), {
      name: 'sandbox',
    });
    registry.register(bashTool());
    const r = await registry.execute({
      callId: 'c',
      name: 'bash',
      arguments: { command: 'cat secrets/key' },
    });
    expect(JSON.stringify(r.content)).toContain(KEY_SECRET);
  });
});

/**
 * A path deny narrows the sandbox as picomatch reads the rule, whatever its syntax: a brace range
 * (`k{1..3}`), nested groups, a range in a list, a POSIX class, quotes, a group made optional or
 * repeated (`(…)?`, `{…}+`), `?` over an emoji (one UTF-16 unit to picomatch), a class opening
 * with `]`, and the glob's own text as a name (picomatch matches that path first). Before, each
 * became globs no such file matched (or one the sandbox refused, and the call was denied): the
 * sandbox held nothing, and a command whose reads the analyzer could not see printed the key.
 * Each file is one the rule denies by name, checked last.
 */
describe.skipIf(NO_BWRAP)(
  'a deny rule in any picomatch syntax narrows the sandbox as it reads',
  () => {
    const KEYS: [rule: string, file: string][] = [
      ['Read(./keys/k{1..3}.txt)', 'keys/k2.txt'],
      ['Read(./keys/{a..c}.txt)', 'keys/b.txt'],
      ['Read(./keys/{x,{y,z}}.txt)', 'keys/z.txt'],
      ['Read(./keys/{1..2,w}.txt)', 'keys/2.txt'],
      ['Read(./keys/[[:digit:]].txt)', 'keys/7.txt'],
      ['Read(./keys/[k].txt)', 'keys/[k].txt'],
      ['Read(./keys/"my key".txt)', 'keys/my key.txt'],
      ['Read(./keys/config(.local)?.json)', 'keys/config.json'],
      ['Read(./keys/{a,b}+)', 'keys/ab'],
      ['Read(./keys/??.pem)', 'keys/😀.pem'],
      ['Read(./keys/[]a])', 'keys/a'],
    ];
    it.each(KEYS)('%s keeps %s from a command that hides its read', async (rule, file) => {
      const canary = `glob-canary-${file.replace(/\W/g, '')}`;
      await mkdir(`${ws}/keys`, { recursive: true });
      await writeFile(`${ws}/${file}`, `${canary}\n`);
      // The name comes from a variable: the analyzer cannot see what is read, and asks.
      const command = `f='${file}'; python3 -c "import sys; print(open(sys.argv[1]).read())" "$f"`;
      const plain = spawnSync('bash', ['-c', command], {
        cwd: ws,
        encoding: 'utf8',
        timeout: 15_000,
      });
      expect(plain.stdout).toContain(canary);
      const registry = createToolRegistry();
      registry.use(sandboxInterceptor({ mode: 'workspace-write', cwd: ws, network: true }), {
        name: 'sandbox',
      });
      const permission = permissionInterceptor({
        cwd: ws,
        rules: { allow: ['Read(./**)'], deny: [rule] },
        // The analyzer's verdict out of the way: whatever it would ask, a person allows.
        approve: async () => ({ kind: 'allow' }),
      });
      registry.use(permission, { name: 'permission' });
      registry.register(bashTool());
      const r = await registry.execute({ callId: 'b', name: 'bash', arguments: { command } });
      expect(JSON.stringify(r.content)).not.toContain(canary);
      // The rule itself denies the file: reading it by name is denied before anything runs.
      const named = await registry.execute({
        callId: 'n',
        name: 'bash',
        arguments: { command: `cat '${file}'` },
      });
      expect(named.isError, JSON.stringify(named.content)).toBe(true);
      expect(JSON.stringify(named.content)).not.toContain(canary);
    });
  },
);
