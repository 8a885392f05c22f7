import { isRecord } from '@dsh-tools/policy-kit';
import type { RawHookRun } from './run-hook';
import type { HookEvent, HookRunStatus } from './types';

/** What a hook said, read from its exit code and output, before the failure policy. */
export interface HookOutcome {
  readonly status: HookRunStatus;
  /** PreToolUse: `allow` / `deny` / `ask`; PostToolUse: `block`; absent: no decision. */
  readonly decision?: 'allow' | 'deny' | 'ask' | 'block';
  readonly reason?: string;
  /** What went wrong, for `failed` and `aborted`. */
  readonly failure?: string;
  readonly updatedInput?: { readonly [key: string]: unknown };
  readonly additionalContext?: string;
  readonly systemMessage?: string;
  readonly stop?: { readonly reason?: string };
  readonly suppressOutput?: boolean;
  /** Plain stdout of a successful run that printed no JSON. */
  readonly plainOutput?: string;
}

/** The last `max` characters of a stream, for a message. */
export const tail = (text: string, max = 500): string => {
  const trimmed = text.trim();
  return trimmed.length > max ? `…${trimmed.slice(-max)}` : trimmed;
};

const failed = (failure: string): HookOutcome => ({ status: 'failed', failure });

/**
 * Reads a hook run as Claude Code does: exit 0 with JSON on stdout is parsed (non-JSON stdout is
 * plain output, no decision), exit 2 blocks with stderr as the reason, anything else has failed.
 * Output that starts with `{` but does not parse, or JSON whose fields have the wrong types, has
 * failed too: a guard hook whose answer cannot be read must not count as "no objection". Never
 * throws, whatever the output.
 */
export const interpretHookRun = (event: HookEvent, run: RawHookRun): HookOutcome => {
  if (run.failure !== undefined) {
    return run.failure.kind === 'aborted'
      ? { status: 'aborted', failure: run.failure.message }
      : failed(run.failure.message);
  }
  if (run.exitCode === 2) {
    const reason = run.stderr.trim();
    return {
      status: 'blocked',
      decision: event === 'PreToolUse' ? 'deny' : 'block',
      reason: reason === '' ? `blocked by ${event} hook (exit code 2, nothing on stderr)` : reason,
    };
  }
  if (run.exitCode !== 0) {
    const stderr = tail(run.stderr);
    const how =
      run.exitCode === null
        ? `was killed by ${run.exitSignal ?? 'a signal'}`
        : `exited with code ${run.exitCode}`;
    return failed(`${how}${stderr === '' ? ' and wrote nothing to stderr' : `: ${stderr}`}`);
  }
  const text = run.stdout.trim();
  if (text === '') return { status: 'ok' };
  if (!text.startsWith('{')) return { status: 'ok', plainOutput: text };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return failed(
      `printed output that looks like JSON but does not parse (${(error as Error).message}): ${tail(text, 200)}`,
    );
  }
  return readJsonOutput(event, json);
};

/** Reads Claude Code's JSON hook output, field by field. */
const readJsonOutput = (event: HookEvent, json: unknown): HookOutcome => {
  if (!isRecord(json)) return failed('printed JSON that is not an object');
  const problems: string[] = [];
  const optionalString = (value: unknown, name: string): string | undefined => {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') {
      problems.push(`"${name}" must be a string`);
      return undefined;
    }
    return value;
  };
  const optionalBoolean = (value: unknown, name: string): boolean | undefined => {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'boolean') {
      problems.push(`"${name}" must be true or false`);
      return undefined;
    }
    return value;
  };

  const cont = optionalBoolean(json.continue, 'continue');
  const stopReason = optionalString(json.stopReason, 'stopReason');
  const suppressOutput = optionalBoolean(json.suppressOutput, 'suppressOutput');
  const systemMessage = optionalString(json.systemMessage, 'systemMessage');
  const legacyReason = optionalString(json.reason, 'reason');

  let decision: HookOutcome['decision'];
  let reason: string | undefined;
  const legacy = json.decision;
  if (legacy !== undefined && legacy !== null) {
    if (event === 'PreToolUse' && (legacy === 'approve' || legacy === 'block')) {
      decision = legacy === 'approve' ? 'allow' : 'deny';
      reason = legacyReason;
    } else if (event === 'PostToolUse' && legacy === 'block') {
      decision = 'block';
      reason = legacyReason;
    } else {
      problems.push(
        `"decision" must be ${event === 'PreToolUse' ? '"approve" or "block"' : '"block"'} (got ${JSON.stringify(legacy)})`,
      );
    }
  }

  let updatedInput: HookOutcome['updatedInput'];
  let additionalContext: string | undefined;
  const specific = json.hookSpecificOutput;
  if (specific !== undefined && specific !== null) {
    if (!isRecord(specific)) {
      problems.push('"hookSpecificOutput" must be an object');
    } else {
      const name = specific.hookEventName;
      if (name !== undefined && name !== event) {
        problems.push(
          `"hookSpecificOutput.hookEventName" is ${JSON.stringify(name)} but the hook ran for ${event}`,
        );
      }
      additionalContext = optionalString(
        specific.additionalContext,
        'hookSpecificOutput.additionalContext',
      );
      if (event === 'PreToolUse') {
        const permission = specific.permissionDecision;
        if (permission !== undefined && permission !== null) {
          if (permission === 'allow' || permission === 'deny' || permission === 'ask') {
            // The current field wins over the deprecated top-level decision, as in Claude Code.
            decision = permission;
            reason = optionalString(
              specific.permissionDecisionReason,
              'hookSpecificOutput.permissionDecisionReason',
            );
          } else {
            problems.push(
              `"hookSpecificOutput.permissionDecision" must be "allow", "deny" or "ask" (got ${JSON.stringify(permission)})`,
            );
          }
        }
        const updated = specific.updatedInput;
        if (updated !== undefined && updated !== null) {
          if (isRecord(updated)) updatedInput = updated;
          else problems.push('"hookSpecificOutput.updatedInput" must be an object of arguments');
        }
      }
    }
  }
  if (problems.length > 0) {
    return failed(`printed JSON this package cannot act on: ${problems.join('; ')}`);
  }
  return {
    status: 'ok',
    ...(decision !== undefined && { decision }),
    ...(reason !== undefined && { reason }),
    ...(updatedInput !== undefined && { updatedInput }),
    ...(additionalContext !== undefined && { additionalContext }),
    ...(systemMessage !== undefined && { systemMessage }),
    ...(cont === false && { stop: stopReason === undefined ? {} : { reason: stopReason } }),
    ...(suppressOutput !== undefined && { suppressOutput }),
  };
};
