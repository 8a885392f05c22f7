import type { ToolRegistryLike } from '@dsh-tools/protocol';
import { asError } from './format';
import type { McpToolsChangeEvent, ToolRecord } from './types';

/** What one application of a listing did: the tools now registered, and the change, if any. */
export interface ToolDiffOutcome {
  /** The tools the registry holds for this server now, in the listing's order. */
  readonly current: Map<string, ToolRecord>;
  /** Undefined when nothing changed. */
  readonly change: McpToolsChangeEvent | undefined;
}

/** Where the diff is applied, and where the problems it contained go. */
export interface ToolDiffTarget {
  /** Names the server in the messages. */
  readonly server: string;
  readonly registry: Pick<ToolRegistryLike, 'register'>;
  /** A refused tool, or a disposer that threw: the diff goes on without it. */
  readonly report: (error: Error) => void;
}

/**
 * Makes the registry hold `desired` instead of `current`: only tools added, removed or changed
 * (key or server name) are registered or disposed, and an unchanged tool keeps its record (the
 * same object, so its registration is untouched). A tool the registry refuses (its name taken by
 * another plugin, a schema it cannot enforce) is reported and handled where it is met: a new tool
 * is left out, a changed one keeps its previous version. One pass, whatever a hostile server
 * lists (refusals cost no restarts: 1,000 tools with every other one refused is one pass, not
 * 500). Registration is synchronous, so no call can slip in between the steps, and the registry
 * ends holding exactly the outcome. Neither map is changed.
 */
export function applyToolDiff(
  current: ReadonlyMap<string, ToolRecord>,
  desired: ReadonlyMap<string, ToolRecord>,
  { server, registry, report }: ToolDiffTarget,
): ToolDiffOutcome {
  const removed: string[] = [];
  const changed = new Set<string>();
  const added = new Set<string>();
  for (const [name, record] of current) {
    const next = desired.get(name);
    if (!next) removed.push(name);
    else if (next !== record && (next.key !== record.key || next.tool !== record.tool)) {
      changed.add(name);
    }
  }
  for (const name of desired.keys()) if (!current.has(name)) added.add(name);
  if (removed.length + changed.size + added.size === 0) {
    // Nothing to register, but the listing's order is the one `handle.tools` promises.
    const reordered = new Map<string, ToolRecord>();
    for (const name of desired.keys()) reordered.set(name, current.get(name) as ToolRecord);
    return { current: reordered, change: undefined };
  }
  for (const name of [...removed, ...changed]) {
    // A disposer is the registry's; one that throws must not pass for a refused tool.
    try {
      (current.get(name) as ToolRecord).dispose();
    } catch (error) {
      report(asError(error));
    }
  }
  const next = new Map<string, ToolRecord>();
  for (const [name, record] of desired) {
    const old = current.get(name);
    if (old && !changed.has(name)) {
      next.set(name, old);
      continue;
    }
    try {
      record.dispose = registry.register(record.definition);
      next.set(name, record);
      continue;
    } catch (error) {
      report(
        new Error(
          `MCP server "${server}": the registry refused tool "${name}" (${asError(error).message}); ${old ? 'its previous version stays' : 'it is left out'}.`,
          { cause: error },
        ),
      );
    }
    added.delete(name);
    if (!old) continue;
    changed.delete(name);
    try {
      old.dispose = registry.register(old.definition);
      next.set(name, old);
    } catch (error) {
      // Its previous version cannot come back either (another plugin took the name meanwhile).
      report(asError(error));
      removed.push(name);
    }
  }
  const change = { added: [...added], removed, changed: [...changed] };
  return {
    current: next,
    change: change.added.length + removed.length + change.changed.length > 0 ? change : undefined,
  };
}
