import { type InterceptedExecution, ToolError, ToolErrorCode } from '@dsh-tools/protocol';
import type { SandboxRunner } from './types';

/**
 * The confined runner of a call, or a `ToolError` (`UNAVAILABLE`) naming the tool when no sandbox
 * interceptor is installed. Tools that run commands call this instead of reading `exec.sandbox`,
 * so that a registry without the sandbox fails closed rather than running commands unconfined.
 */
export function requireSandbox(
  exec: Pick<InterceptedExecution, 'name' | 'sandbox'>,
): SandboxRunner {
  const sandbox = exec.sandbox;
  if (sandbox === undefined || sandbox === null || typeof sandbox.run !== 'function') {
    throw new ToolError(
      ToolErrorCode.UNAVAILABLE,
      `Tool "${exec.name}" runs commands only inside a sandbox, and no sandbox interceptor is installed. ` +
        "Install one: registry.use(sandboxInterceptor({ mode: 'workspace-write' }), { name: 'sandbox' }) " +
        'from @dsh-tools/interceptors-sandbox.',
    );
  }
  return sandbox;
}
