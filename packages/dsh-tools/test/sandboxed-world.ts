import { requireSandbox, sandboxInterceptor } from '@dsh-tools/interceptors-sandbox';
import type { BodyExecution, Interceptor } from '@dsh-tools/protocol';
import { textContent } from '@dsh-tools/protocol';
import { createToolRegistry, type ToolRegistry } from '@dsh-tools/registry';
import { toolEnv, type World } from '../../interceptors-permission/test/attacks/fixture';
import { COMMAND_TIMEOUT_MS, grepTool } from '../../interceptors-permission/test/attacks/tools';

/** Runs `bash -c line` in the call's (narrowed) sandbox; output and exit code as text. */
async function sandboxedBash(world: World, exec: BodyExecution, line: string): Promise<string> {
  const env = Object.fromEntries(
    Object.entries(toolEnv(world.home)).filter((e): e is [string, string] => e[1] !== undefined),
  );
  const run = await requireSandbox(exec).run(['bash', '-c', line], {
    env,
    timeoutMs: COMMAND_TIMEOUT_MS,
    signal: exec.signal,
  });
  return `${run.stdout}${run.stderr}\n[exit ${run.exitCode}]`;
}

/** A registry with the world's three tools under the sandbox and `policy`. */
export function sandboxedWorldRegistry(
  world: World,
  policy: Interceptor,
  ran: { count: number },
): ToolRegistry {
  const registry = createToolRegistry({ timeoutMs: COMMAND_TIMEOUT_MS * 2 });
  registry.use(sandboxInterceptor({ mode: 'workspace-write', cwd: world.repo, network: true }), {
    name: 'sandbox',
  });
  registry.use(policy, { name: 'permission' });
  registry.register({
    name: 'Bash',
    description: 'Runs a shell command in the project, in the sandbox.',
    parameters: {
      type: 'object',
      properties: { command: { type: 'string' } },
      required: ['command'],
    },
    hints: { command: 'command' },
    execute: async (args, exec) => {
      ran.count++;
      return [textContent(await sandboxedBash(world, exec, String(args.command)))];
    },
  });
  // In-process: no sandbox holds it, so it leaves out what the policy excludes.
  const grep = grepTool(world, { honoursExclude: true });
  registry.register({
    ...grep,
    execute: (args, exec) => {
      ran.count++;
      return grep.execute(args, exec);
    },
  });
  registry.register({
    name: 'Deploy',
    description: 'Deploys the project (a tool with no hints), in the sandbox.',
    parameters: { type: 'object', properties: { target: { type: 'string' } } },
    execute: async (_args, exec) => {
      ran.count++;
      return [textContent(await sandboxedBash(world, exec, `touch '${world.mark}'`))];
    },
  });
  return registry;
}
