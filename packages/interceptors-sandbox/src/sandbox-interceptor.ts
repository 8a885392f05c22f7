import { lstatSync } from 'node:fs';
import {
  errorResult,
  type InterceptedExecution,
  type Interceptor,
  ToolErrorCode,
  type ToolExecutionResult,
} from '@dsh-tools/protocol';
import { resolveSandboxOptions } from './options';
import { collectPathArgs, fileUrlProblem, urlReading } from './path-args';
import { checkAccess, type PathViolation, type PolicySnapshot, snapshotPolicy } from './policy';
import {
  lexicalAbsolute,
  PathResolutionError,
  pathShapeProblem,
  resolveLikeKernelSync,
} from './resolve-path';
import { createRunnerFor } from './runner';
import type { SandboxOptions } from './types';

/** The `details` of a `SANDBOX_VIOLATION` the interceptor returns. */
export interface SandboxViolationDetails {
  readonly interceptor: 'sandbox';
  readonly mode: string;
  readonly tool: string;
  /** Set for a path argument; absent when the tool itself is refused by the mode. */
  readonly violation?: PathViolation;
  readonly rule: string;
}

const veto = (
  exec: InterceptedExecution,
  mode: string,
  message: string,
  rule: string,
  violation?: PathViolation,
): ToolExecutionResult =>
  errorResult(exec.callId, ToolErrorCode.SANDBOX_VIOLATION, message, {
    interceptor: 'sandbox',
    mode,
    tool: exec.name,
    rule,
    ...(violation && { violation }),
  } satisfies SandboxViolationDetails);

/** Checks one path value; returns the violation, or `undefined` when the mode permits it. */
function checkPathArg(
  policy: PolicySnapshot,
  arg: string,
  access: 'read' | 'write',
  value: unknown,
): PathViolation | undefined {
  const shape = pathShapeProblem(value);
  if (shape !== undefined) {
    // Never String() a hostile value: its toString may throw or lie.
    const shown =
      typeof value === 'string'
        ? value.slice(0, 200)
        : `<${value === null ? 'null' : typeof value}>`;
    return { arg, access, path: shown, rule: `the path ${shape}` };
  }
  const path = value as string;
  const url = fileUrlProblem(path);
  if (url !== undefined) return { arg, access, path, rule: `the path ${url}` };
  // Every reading a tool might act on must be permitted: the kernel's (which follows a link before
  // its "..") and a lexically normalised one (path.resolve, which drops "link/.." first); for a
  // leading "~", which the kernel does not expand, a tool that expands it too; and a tool that
  // takes the path as a URL relative to the cwd (percent-decoded, backslashes as slashes).
  const given =
    path === '~' || path.startsWith('~/') ? [path, policy.config.home + path.slice(1)] : [path];
  const asUrl = urlReading(path, policy.config.cwd);
  if (asUrl !== undefined) given.push(asUrl);
  const readings = [...new Set(given.flatMap((p) => [p, lexicalAbsolute(p, policy.config.cwd)]))];
  const resolved: string[] = [];
  try {
    for (const reading of readings) {
      const target = resolveLikeKernelSync(reading, policy.cwd);
      if (!resolved.includes(target)) resolved.push(target);
    }
  } catch (error) {
    if (!(error instanceof PathResolutionError)) throw error;
    return { arg, access, path, rule: `the path cannot be resolved: ${error.message}` };
  }
  const refused = checkAccess(policy, access, path, resolved);
  if (refused !== undefined) {
    return { arg, access, path, resolved: resolved.join('" or "'), ...refused };
  }
  if (access === 'write') {
    for (const target of resolved) {
      let st: ReturnType<typeof lstatSync> | undefined;
      try {
        st = lstatSync(target);
      } catch {
        st = undefined;
      }
      if (st?.isFile() && st.nlink > 1) {
        return {
          arg,
          access,
          path,
          resolved: target,
          rule: `hard links: "${target}" has ${st.nlink} names and a write through one changes them all, where the sandbox cannot see the others`,
        };
      }
    }
  }
  return undefined;
}

/**
 * The sandbox interceptor: vetoes calls whose path arguments (from `hints.paths`) reach outside
 * what the mode permits, resolved as the kernel would (symlinks, dangling links, symlinked
 * parents, `..` after a link), and hands the tool body a confined process runner as
 * `exec.sandbox`. Every veto is a `SANDBOX_VIOLATION` result naming the tool, the argument, the
 * path as given, where it resolves and the rule. Throws a `TypeError` at creation on invalid
 * options; never throws afterwards.
 *
 * Install it outside the permission interceptor: a person's approval must not widen the sandbox.
 */
export function sandboxInterceptor(options: SandboxOptions): Interceptor {
  const config = resolveSandboxOptions(options, 'sandboxInterceptor');
  const { mode } = config;
  return async (exec, next) => {
    let policy: PolicySnapshot;
    try {
      const tool = exec.tool;
      const hints = tool?.hints ?? {};
      if (mode === 'read-only' && hints.readOnly !== true) {
        return veto(
          exec,
          mode,
          `Tool "${exec.name}" is not marked readOnly, and the sandbox is in mode "read-only", which permits only read-only tools. Switch to mode "workspace-write" to let it run.`,
          'mode "read-only" permits only tools with hints.readOnly',
        );
      }
      const found = collectPathArgs(exec.arguments, hints.paths);
      if (typeof found === 'string') {
        return veto(
          exec,
          mode,
          `Tool "${exec.name}": ${found}; the sandbox refuses what it cannot check.`,
          'hints.paths',
        );
      }
      if (typeof hints.command === 'string' && exec.arguments[hints.command] !== undefined) {
        const command = exec.arguments[hints.command];
        if (typeof command !== 'string' || command.includes('\0')) {
          return veto(
            exec,
            mode,
            `Tool "${exec.name}": argument "${hints.command}" must be a command line without null bytes.`,
            'hints.command',
          );
        }
      }
      try {
        policy = snapshotPolicy(config);
      } catch (error) {
        if (!(error instanceof PathResolutionError)) throw error;
        return veto(
          exec,
          mode,
          `Tool "${exec.name}": the sandbox cannot resolve its own paths: ${error.message}. Fix the sandbox's cwd, roots or deny globs.`,
          'configuration',
        );
      }
      for (const { arg, access, value } of found) {
        const violation = checkPathArg(policy, arg, access, value);
        if (violation !== undefined) {
          const where =
            violation.resolved === undefined ? '' : ` (resolves to "${violation.resolved}")`;
          return veto(
            exec,
            mode,
            `Tool "${exec.name}": argument "${arg}" = ${JSON.stringify(violation.path)}${where} may not be ${access === 'read' ? 'read' : 'written'}: ${violation.rule}. Use a path the sandbox permits.`,
            violation.rule,
            violation,
          );
        }
      }
    } catch (error) {
      return errorResult(
        exec.callId,
        ToolErrorCode.INTERCEPTOR_ERROR,
        `Tool "${exec.name}": the sandbox interceptor failed (${(error as Error)?.message ?? String(error)}); the call did not run.`,
      );
    }
    const sandbox = createRunnerFor(config, { who: `Tool "${exec.name}"`, signal: exec.signal });
    return next({ ...exec, sandbox });
  };
}
