import { ToolError, ToolErrorCode } from '@dsh-tools/protocol';
import type { SandboxConfig } from './options';
import type { PolicySnapshot } from './policy';

/** Where each writable root resolved the first time this sandbox looked, per configuration. */
const firstSeen = new WeakMap<SandboxConfig, Map<string, string>>();

/**
 * Refuses a run (or a path check) when a writable root now resolves somewhere other than where it
 * resolved the first time: a root given by name (`build/out`) would otherwise follow whatever a
 * process put on its way since (`mv build build.old && mkdir build && ln -s /outside build/out`),
 * turning the sandbox's own writable root into a door to `/outside`. A root recreated at the same
 * place (`rm -rf dist && mkdir dist`) is the same root.
 */
export function checkRootsStayPut(
  config: SandboxConfig,
  policy: PolicySnapshot,
  who: string,
): void {
  if (config.mode !== 'workspace-write') return;
  let seen = firstSeen.get(config);
  if (seen === undefined) {
    seen = new Map();
    firstSeen.set(config, seen);
  }
  for (const [given, real] of policy.roots) {
    const before = seen.get(given);
    if (before === undefined) seen.set(given, real);
    else if (before !== real) {
      throw new ToolError(
        ToolErrorCode.SANDBOX_VIOLATION,
        `${who}: the writable root "${given}" resolved to "${before}" when the sandbox first used it and now resolves to "${real}": a link or a rename moved it; nothing runs until the sandbox is created again with the roots meant`,
        {
          details: {
            arg: 'roots',
            path: given,
            resolved: real,
            rule: 'roots stay where they were first resolved',
          },
        },
      );
    }
  }
}
