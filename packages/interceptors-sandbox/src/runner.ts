import { lstatSync, statSync } from 'node:fs';
import { ToolError, ToolErrorCode } from '@dsh-tools/protocol';
import { bwrapArgs, envArgs } from './bwrap-args';
import { createRunCgroup } from './cgroup';
import { bwrapMissingMessage, locateBwrap } from './find-bwrap';
import { findBash } from './launcher';
import { ulimitArgs } from './limits';
import { findMasks, MaskScanLimitError, type Masks } from './masks';
import { describeConfig, narrowConfig } from './narrow';
import { resolveSandboxOptions, type SandboxConfig } from './options';
import { nestedRoots, pinsFor } from './pins';
import { checkAccess, type PolicySnapshot, snapshotPolicy } from './policy';
import { isInside, PathResolutionError, resolveLikeKernelSync } from './resolve-path';
import { checkRootsStayPut } from './root-identity';
import { checkRunInput, runEnv } from './run-input';
import { seccompProgram } from './seccomp';
import { type Launch, spawnAndWait } from './spawn-and-wait';
import type {
  SandboxNarrowing,
  SandboxOptions,
  SandboxRunner,
  SandboxRunOptions,
  SandboxRunResult,
} from './types';

const isDirectory = (path: string): boolean => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

const isFile = (path: string): boolean => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/** /run, and /var/run where it is a directory of its own rather than a link to /run. */
const hostRunDirs = (): string[] => {
  const dirs = isDirectory('/run') ? ['/run'] : [];
  try {
    if (lstatSync('/var/run').isDirectory()) dirs.push('/var/run');
  } catch {}
  return dirs;
};

interface RunContext {
  /** Who is asking, for messages: `Tool "bash"` or `sandbox runner`. */
  readonly who: string;
  /** The call's signal, observed besides any signal given to run(). */
  readonly signal?: AbortSignal | undefined;
}

/** Creates the runner for one call (or for a host), with `context` naming who runs. */
export function createRunnerFor(config: SandboxConfig, context: RunContext): SandboxRunner {
  const run = async (
    argv: readonly string[],
    options?: SandboxRunOptions,
  ): Promise<SandboxRunResult> => {
    const input = checkRunInput(config, context.who, argv, options);
    const signals = [context.signal, input.signal].filter((s): s is AbortSignal => s !== undefined);
    const bwrap = locateBwrap(config.bwrapPath);
    if (bwrap === undefined && !config.allowUnsandboxed) {
      throw new ToolError(
        ToolErrorCode.UNAVAILABLE,
        bwrapMissingMessage(context.who, config.bwrapPath),
      );
    }
    let policy: PolicySnapshot;
    let cwd: string;
    try {
      policy = snapshotPolicy(config);
      checkRootsStayPut(config, policy, context.who);
      cwd = input.cwd === undefined ? policy.cwd : resolveLikeKernelSync(input.cwd, policy.cwd);
    } catch (error) {
      if (!(error instanceof PathResolutionError)) throw error;
      throw new ToolError(
        ToolErrorCode.SANDBOX_VIOLATION,
        `${context.who}: the sandbox cannot resolve its paths: ${error.message}`,
      );
    }
    const refused = checkAccess(policy, 'read', input.cwd ?? config.cwd, [cwd]);
    if (refused !== undefined) {
      throw new ToolError(
        ToolErrorCode.SANDBOX_VIOLATION,
        `${context.who}: sandbox.run cwd "${input.cwd ?? config.cwd}" (resolved "${cwd}") is refused by ${refused.rule}; run somewhere else`,
        { details: { arg: 'cwd', path: input.cwd ?? config.cwd, resolved: cwd, ...refused } },
      );
    }
    if (!isDirectory(cwd)) {
      throw new Error(`${context.who}: sandbox.run cwd "${cwd}" is not an existing directory`);
    }
    const env = runEnv(config, input.env);
    if (signals.some((s) => s.aborted)) {
      return {
        exitCode: null,
        signal: null,
        stdout: '',
        stderr: '',
        truncated: false,
        timedOut: false,
        aborted: true,
        sandboxed: bwrap !== undefined,
      };
    }
    const bash = findBash();
    if (bwrap !== undefined && bash === undefined) {
      throw new ToolError(
        ToolErrorCode.UNAVAILABLE,
        `${context.who}: the sandbox needs bash on the host (/bin/bash or /usr/bin/bash) to start bubblewrap with its limits; install bash`,
      );
    }
    const launch = (): Launch | undefined => {
      if (bash === undefined) return undefined;
      const cgroup = createRunCgroup(config.limits);
      return { bash, cgroup, ulimit: ulimitArgs(config.limits, !cgroup?.countsProcesses) };
    };
    if (bwrap === undefined)
      return spawnAndWait(input.argv[0]!, input.argv.slice(1), {
        cwd,
        env,
        input,
        signals,
        config,
        limits: config.limits,
        sandboxed: false,
        who: context.who,
        launch: launch(),
        rawOutput: input.rawOutput,
      });
    const seccomp = seccompProgram({ network: config.network, unixSockets: config.exposeRun });
    if (seccomp === undefined) {
      throw new ToolError(
        ToolErrorCode.UNAVAILABLE,
        `${context.who}: the sandbox has no syscall filter for the ${process.arch} architecture (x64 and arm64 have one), so it does not run commands here`,
      );
    }

    const writableRoots =
      config.mode === 'workspace-write'
        ? policy.roots.map(([, real]) => real).filter(isDirectory)
        : [];
    if (writableRoots.includes('/')) {
      throw new ToolError(
        ToolErrorCode.SANDBOX_VIOLATION,
        `${context.who}: a writable root resolves to "/"; use mode "full-access" if that is meant`,
      );
    }
    const fresh = (p: string) => isInside(p, '/proc') || isInside(p, '/dev');
    // Directories replaced by an empty tmpfs: /tmp (but in full-access), and /run, where host
    // daemons keep their sockets (docker, dbus, ssh-agent): connecting to a Unix socket needs no
    // write access to its file system, so a read-only bind does not stop it.
    const emptied = [
      ...(config.mode === 'full-access' ? [] : ['/tmp']),
      ...(config.exposeRun ? [] : hostRunDirs()),
    ];
    const bound = [
      cwd,
      policy.cwd,
      ...(config.mode === 'read-only' ? policy.roots.map(([, r]) => r) : []),
    ];
    const readonlyBinds = [...new Set(bound)].filter(
      (p) =>
        emptied.some((d) => isInside(p, d) && p !== d) &&
        !writableRoots.some((r) => isInside(p, r)),
    );
    if (config.network && !config.exposeRun) {
      // DNS keeps working where /etc/resolv.conf points into /run (systemd-resolved).
      const resolvConf = resolveLikeKernelSync('/etc/resolv.conf', '/');
      if (emptied.some((d) => isInside(resolvConf, d)) && isFile(resolvConf)) {
        readonlyBinds.push(resolvConf);
      }
    }
    const visible = (p: string) =>
      !fresh(p) &&
      (!emptied.some((d) => isInside(p, d)) ||
        [...writableRoots, ...readonlyBinds].some((b) => isInside(p, b)));
    const writable = (p: string) =>
      config.mode === 'full-access' || writableRoots.some((r) => isInside(p, r));
    const mountPoints = config.mode === 'full-access' ? ['/'] : writableRoots;
    let masks: Masks;
    try {
      masks = findMasks(policy, cwd, { visible, writable, mountPoints });
    } catch (error) {
      if (error instanceof MaskScanLimitError) {
        throw new ToolError(
          ToolErrorCode.UNAVAILABLE,
          `${context.who}: ${error.message}, so the deny lists could not be applied inside the sandbox; ` +
            'raise maskScan.maxEntries, lower maskScan.depth, add large directories to maskScan.skip, or narrow the roots',
        );
      }
      throw error;
    }
    // Everything protected keeps its place for the whole run: its ancestors in writable places are
    // bound onto themselves, and a mount point cannot be renamed or removed.
    const pins = pinsFor(
      [...masks.hideDirs, ...masks.hideFiles, ...masks.freeze, ...nestedRoots(writableRoots)],
      (p) => visible(p) && writable(p),
      mountPoints,
    );
    const args = bwrapArgs({
      mode: config.mode,
      network: config.network,
      emptied,
      writableRoots,
      readonlyBinds,
      pins,
      masks,
      limits: config.limits,
      seccomp: true,
      cwd,
      argv: input.argv,
    });
    return spawnAndWait(bwrap, args, {
      cwd: '/',
      env,
      input,
      signals,
      config,
      limits: config.limits,
      sandboxed: true,
      who: context.who,
      launch: launch(),
      seccomp,
      bwrapArgs: envArgs(env),
      rawOutput: input.rawOutput,
    });
  };
  const narrow = (narrowing: SandboxNarrowing): SandboxRunner =>
    createRunnerFor(narrowConfig(config, narrowing, context.who), context);
  return Object.freeze({ mode: config.mode, run, narrow, describe: () => describeConfig(config) });
}

/**
 * Creates a confined process runner outside any tool call: for hosts that run commands of their
 * own (a `!` shell escape, a hook) under the same rules as tools. Throws a `TypeError` on invalid
 * options.
 */
export function createSandboxRunner(options: SandboxOptions): SandboxRunner {
  const config = resolveSandboxOptions(options, 'createSandboxRunner');
  return createRunnerFor(config, { who: 'sandbox runner' });
}
