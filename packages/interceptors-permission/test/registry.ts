import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { textContent } from '@dsh-tools/protocol';
import { createToolRegistry, type ToolRegistry } from '@dsh-tools/registry';
import type { PermissionInterceptor } from '../src/index';

const run = promisify(execFile);

/**
 * A real registry with three real tools working in `root`: `Bash` runs its command with `sh -c`,
 * `Read` reads a file, `Edit` writes one. The permission interceptor is the only policy.
 */
export function registryWith(policy: PermissionInterceptor, root: string): ToolRegistry {
  const registry = createToolRegistry();
  registry.register({
    name: 'Bash',
    description: 'Runs a shell command.',
    parameters: {
      type: 'object',
      properties: { command: { type: 'string' } },
      required: ['command'],
    },
    hints: { command: 'command', concurrencySafe: true },
    execute: async (args) => {
      const { stdout } = await run('sh', ['-c', String(args.command)], { cwd: root });
      return [textContent(stdout)];
    },
  });
  registry.register({
    name: 'Read',
    description: 'Reads a file.',
    parameters: {
      type: 'object',
      properties: { file_path: { type: 'string' } },
      required: ['file_path'],
    },
    hints: { readOnly: true, concurrencySafe: true, paths: [{ arg: 'file_path', access: 'read' }] },
    execute: (args) => [textContent(readFileSync(resolve(root, String(args.file_path)), 'utf8'))],
  });
  registry.register({
    name: 'Edit',
    description: 'Writes a file.',
    parameters: {
      type: 'object',
      properties: { file_path: { type: 'string' }, content: { type: 'string' } },
      required: ['file_path'],
    },
    hints: { paths: [{ arg: 'file_path', access: 'write' }] },
    execute: (args) => {
      writeFileSync(resolve(root, String(args.file_path)), String(args.content ?? ''));
      return [textContent('written')];
    },
  });
  registry.use(policy, { name: 'permission' });
  return registry;
}

let n = 0;
/** A call as the model makes it. */
export const modelCall = (name: string, args: Record<string, unknown>, signal?: AbortSignal) => ({
  callId: `c${++n}`,
  name,
  arguments: args,
  ...(signal && { signal }),
});
