/**
 * What one trivial PreToolUse hook (`exit 0`) costs per call through the registry, against
 * spawning the same command directly (`child_process.spawn('/bin/sh', ['-c', 'exit 0'])`, waiting
 * for it to close), in one run. The hooked call also pays for the registry itself, measured
 * alone beside it, the JSON payload on stdin, the process group and the output parsing.
 */
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { hooksInterceptor } from '@dsh-tools/interceptors-hooks';
import { textContent } from '@dsh-tools/protocol';
import { createToolRegistry } from '@dsh-tools/registry';
import { formatNs, reportRatio, runSuite } from './lib';

const COMMAND = 'exit 0';

const tool = {
  name: 'Bash',
  description: 'echoes its command',
  parameters: {
    type: 'object' as const,
    properties: { command: { type: 'string' } },
    required: ['command'],
    additionalProperties: false,
  },
  execute: (args: { readonly [k: string]: unknown }) => [textContent(String(args.command))],
};

const bare = createToolRegistry();
bare.register(tool);

const hooked = createToolRegistry();
hooked.register(tool);
hooked.use(
  hooksInterceptor({
    hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: COMMAND }] }] },
    cwd: tmpdir(),
  }),
  { name: 'hooks' },
);

const direct = () =>
  new Promise<void>((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', COMMAND], { cwd: tmpdir(), stdio: 'pipe' });
    child.on('error', reject);
    child.on('close', () => resolve());
    child.stdin.end();
  });

let n = 0;
const args = { command: 'ls -la' };
const means = await runSuite(
  'one trivial PreToolUse hook per call vs spawning the same command directly',
  'direct spawn of sh -c',
  [
    { name: 'direct spawn of sh -c', fn: direct },
    {
      name: 'registry.execute with one exit-0 hook',
      fn: async () => {
        const result = await hooked.execute({ callId: `c${n++}`, name: 'Bash', arguments: args });
        if (result.isError) throw new Error(result.error?.message);
      },
    },
    {
      name: 'registry.execute, no hooks',
      fn: () => bare.execute({ callId: `c${n++}`, name: 'Bash', arguments: args }),
    },
  ],
  { time: 1500, rounds: 5 },
);

const spawnNs = means['direct spawn of sh -c'] ?? Number.NaN;
const hookNs = means['registry.execute with one exit-0 hook'] ?? Number.NaN;
const bareNs = means['registry.execute, no hooks'] ?? Number.NaN;
const ratio = hookNs / spawnNs;
if (Number.isFinite(ratio) && ratio > 0) {
  reportRatio('hooked call / direct spawn', ratio);
  console.log(
    `overhead of the interceptor beyond the spawn and the bare registry: ${formatNs(hookNs - spawnNs - bareNs)} a call`,
  );
} else {
  console.log('ratio: hooked call / direct spawn = not resolved (noise made it meaningless)');
}
