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
  /** A refused tool, a disposer or an undo step that threw: the diff goes on without it. */
  readonly report: (error: Error) => void;
}

/**
 * Makes the registry hold `desired` instead of `current`: only tools added, removed or changed
 * (key or server name) are registered or disposed, and an unchanged tool keeps its record (the
 * same object, so its registration is untouched). All or nothing: a tool the registry refuses
 * (its name taken by another plugin, a schema it cannot hold) makes the attempt undo every step it
 * took; the tool is then reported and left out (or keeps its previous version) and the rest is
 * applied again from the start, so the registry never holds half a listing. Neither map is
 * changed; registration is synchronous, so no call can slip in between the steps.
 */
export function applyToolDiff(
  current: ReadonlyMap<string, ToolRecord>,
  desired: ReadonlyMap<string, ToolRecord>,
  target: ToolDiffTarget,
): ToolDiffOutcome {
  const wanted = new Map(desired);
  for (let attempt = 0; attempt <= desired.size; attempt++) {
    const outcome = applyOnce(current, wanted, target);
    if (!('refused' in outcome)) return outcome;
    const { name, error } = outcome.refused;
    const old = current.get(name);
    target.report(
      new Error(
        `MCP server "${target.server}": the registry refused tool "${name}" (${asError(error).message}); ${old ? 'its previous version stays' : 'it is left out'}.`,
        { cause: error },
      ),
    );
    if (old) wanted.set(name, old);
    else wanted.delete(name);
  }
  // Each attempt settles one name for good (left out or back to its registered version), so the
  // loop ends by `desired.size`; this is reached only if the registry refuses a version it held.
  return { current: new Map(current), change: undefined };
}

/** One all-or-nothing attempt; on a refusal, every step already taken is undone. */
function applyOnce(
  current: ReadonlyMap<string, ToolRecord>,
  desired: ReadonlyMap<string, ToolRecord>,
  { registry, report }: ToolDiffTarget,
): ToolDiffOutcome | { refused: { name: string; error: unknown } } {
  const removed: string[] = [];
  const changed = new Set<string>();
  const added: string[] = [];
  for (const [name, record] of current) {
    const next = desired.get(name);
    if (!next) removed.push(name);
    else if (next !== record && (next.key !== record.key || next.tool !== record.tool)) {
      changed.add(name);
    }
  }
  for (const name of desired.keys()) if (!current.has(name)) added.push(name);
  if (removed.length + changed.size + added.length === 0) {
    // Nothing to register, but the listing's order is the one `handle.tools` promises.
    const reordered = new Map<string, ToolRecord>();
    for (const name of desired.keys()) reordered.set(name, current.get(name) as ToolRecord);
    return { current: reordered, change: undefined };
  }

  const undo: (() => void)[] = [];
  const next = new Map<string, ToolRecord>();
  let registering = '';
  try {
    for (const name of [...removed, ...changed]) {
      const old = current.get(name) as ToolRecord;
      // A disposer is the registry's; one that throws must not pass for a refused tool.
      try {
        old.dispose();
      } catch (error) {
        report(asError(error));
      }
      undo.push(() => {
        old.dispose = registry.register(old.definition);
      });
    }
    for (const [name, record] of desired) {
      const old = current.get(name);
      if (old && !changed.has(name)) {
        next.set(name, old);
        continue;
      }
      registering = name;
      record.dispose = registry.register(record.definition);
      undo.push(() => record.dispose());
      next.set(name, record);
    }
  } catch (error) {
    for (const step of undo.reverse()) {
      try {
        step();
      } catch (undoError) {
        report(asError(undoError));
      }
    }
    return { refused: { name: registering, error } };
  }
  return { current: next, change: { added, removed, changed: [...changed] } };
}
