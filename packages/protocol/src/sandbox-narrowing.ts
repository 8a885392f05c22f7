/**
 * What a policy takes away from the sandbox of one call. A permission rule that denies reading
 * `.env` or writing `src/`, or that allows no network, narrows the sandbox every process of that
 * call runs in, so a command the policy misreads still cannot reach what the rule forbids. It can
 * only take away: a sandbox never grows from a narrowing.
 */
export interface SandboxNarrowing {
  /** Globs never read nor written, added to the sandbox's own (its glob dialect: `*`, `?`, `**`, `~/`, relative to its cwd). */
  readonly denyRead?: readonly string[];
  /** Globs never written, added to the sandbox's own. */
  readonly denyWrite?: readonly string[];
  /** `false`: no network for this call's processes, whatever the sandbox allows. */
  readonly network?: false;
  /** Who narrows and why, for messages: `permission rules (project settings)`. */
  readonly by?: string;
}

/**
 * A sandbox extension a policy can narrow for one call without importing the sandbox package:
 * `next({ ...exec, sandbox: exec.sandbox.narrow(narrowing) })`. `narrow` throws a `TypeError`
 * for a glob the sandbox cannot enforce; a policy then fails closed (denies or asks).
 */
export interface NarrowableSandbox {
  narrow(narrowing: SandboxNarrowing): NarrowableSandbox;
}
