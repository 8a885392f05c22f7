import { ToolErrorCode as Codes, errorResult, type ToolExecutionResult } from '@dsh-tools/protocol';
import { quote } from './describe';
import { UNREADABLE } from './results';
import type { Failed, Prepared } from './types';

/** The stages a turn is scheduled over; each contains its own failures and never rejects. */
export interface TurnStages {
  /** Read the call, resolve the tool, validate the arguments: one call of the turn. */
  readonly prepare: (raw: unknown) => Promise<Prepared | Failed>;
  /**
   * Run the interceptors and the body, assemble the result, tell the observers: one prepared
   * call (prepared again first if its tool changed meanwhile).
   */
  readonly dispatch: (prepared: Prepared) => Promise<ToolExecutionResult>;
  /** The result of a call that failed before dispatch, observers told. */
  readonly fail: (failed: Failed) => ToolExecutionResult;
  /** How many calls overlap at most, unless the turn's options say otherwise. */
  readonly maxConcurrency: number;
}

/** Whether a prepared call may overlap others: its hint, or its classifier on the validated args. */
const isConcurrencySafe = (prepared: Prepared): boolean => {
  const hint = prepared.entry.view.hints.concurrencySafe;
  if (hint === true) return true;
  if (typeof hint !== 'function') return false;
  try {
    return hint(prepared.exec.arguments) === true;
  } catch {
    return false;
  }
};

/**
 * The stage *schedule the turn* (`executeAll`): consecutive concurrency-safe calls overlap (at most
 * `maxConcurrency`), every other call is a barrier (everything before it has finished, nothing
 * after it has started), results come back in call order, and one failure never cancels the
 * others. A call is prepared only when the calls before it allow it to be, so that a tool
 * disposed by an earlier call of the turn is `UNKNOWN_TOOL`. Resolves `[]` for anything but an
 * array; never rejects.
 */
export async function executeAll(
  execs: unknown,
  options: unknown,
  stages: TurnStages,
): Promise<ToolExecutionResult[]> {
  let list: unknown[];
  let limit = stages.maxConcurrency;
  try {
    // Only a real array: Array.from would turn a string into one call per character.
    if (!Array.isArray(execs)) return [];
    list = Array.from(execs as unknown[]);
  } catch {
    // An array Proxy whose traps throw: no calls can be read.
    return [];
  }
  try {
    const wanted = (options as { maxConcurrency?: unknown } | undefined)?.maxConcurrency;
    if (typeof wanted === 'number' && wanted >= 1) limit = Math.floor(wanted);
  } catch {
    // Unreadable options: the registry's default bound.
  }
  const { dispatch, fail } = stages;
  // Two calls of one turn with one callId could take each other's results (the model matches
  // results to its calls by id): every call after the first with an id already used is refused.
  const firstWithId = new Map<string, number>();
  const prepare = async (k: number): Promise<Prepared | Failed> => {
    const prepared = await stages.prepare(list[k]);
    const { exec } = prepared;
    if (exec === UNREADABLE) return prepared;
    const first = firstWithId.get(exec.callId);
    if (first === undefined) {
      firstWithId.set(exec.callId, k);
      return prepared;
    }
    return {
      failed: errorResult(
        exec.callId,
        Codes.INVALID_ARGS,
        `executeAll(): call ${k} of this turn has the callId ${quote(exec.callId)} of call ${first}; nothing ran. Give every call its own callId (the model's tool-call id).`,
      ),
      exec,
    };
  };
  // Every stage contains its own failures, so one call can never take another's result, and no
  // call is ever dispatched twice.
  const out: ToolExecutionResult[] = new Array(list.length);
  let i = 0;
  let carried: Prepared | Failed | undefined;
  while (i < list.length) {
    // A call carried over from the end of a run was already classified as not safe.
    const wasCarried = carried !== undefined;
    const first = carried ?? (await prepare(i));
    carried = undefined;
    if ('failed' in first) {
      out[i] = fail(first);
      i++;
      continue;
    }
    if (wasCarried || !isConcurrencySafe(first)) {
      out[i] = await dispatch(first);
      i++;
      continue;
    }
    // A run of consecutive concurrency-safe calls; the first call that is not ends it and
    // waits (prepared) until the run is done.
    const start = i;
    const group: Prepared[] = [first];
    while (start + group.length < list.length) {
      const candidate = await prepare(start + group.length);
      if ('failed' in candidate || !isConcurrencySafe(candidate)) {
        carried = candidate;
        break;
      }
      group.push(candidate);
    }
    let cursor = 0;
    const worker = async (): Promise<void> => {
      while (cursor < group.length) {
        const k = cursor++;
        out[start + k] = await dispatch(group[k]!);
      }
    };
    await Promise.all(Array.from({ length: Math.min(limit, group.length) }, worker));
    i += group.length;
  }
  return out;
}
