import { createHash } from 'node:crypto';
import type {
  InterceptedExecution,
  ToolArgs,
  ToolExecution,
  ToolExecutionResult,
} from '@dsh-tools/protocol';
import type { ToolRegistry } from '@dsh-tools/registry';
import type { AuditLog } from './audit-log';

/** What an audit trail is told by the permission interceptor (its `onDecision`). */
export interface PermissionVerdict {
  readonly behavior: 'allow' | 'deny' | 'ask';
  readonly decidedBy: { readonly kind: string; readonly [field: string]: unknown };
  readonly reason: string;
}

export interface AuditOptions {
  readonly log: AuditLog;
  /** Who made a call (an identity's name), from the call as the host passed it. */
  readonly identityOf?: (exec: ToolExecution) => string | undefined;
  /** More argument names whose values are never written (the defaults cover passwords, tokens, keys). */
  readonly redactKeys?: readonly string[];
  /** A line that could not be written (the disk refused it); the call's result is unchanged. */
  readonly onError?: (error: unknown) => void;
}

/** Names whose values are secrets, wherever they sit in the arguments. */
const SECRET_KEY =
  /pass(word|wd|phrase)?$|secret|token|api[-_]?key|^auth|authori[sz]ation|credential|private[-_]?key|cookie|session[-_]?id/i;
/** Secrets by their look inside any string: bearer tokens, provider keys, PEM keys, URL passwords. */
const SECRET_TEXT: readonly RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  /\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  /\b(sk|pk|rk)-[A-Za-z0-9_-]{16,}/g,
  /\b(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /(?<=[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+(?=@)/gi,
];
/** Longer strings are cut in the record (the digest covers them whole). */
const MAX_STRING = 1024;
const MAX_DEPTH = 8;

/** JSON with object keys sorted: the same arguments give the same digest whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** `sha256:<hex>` of the arguments' canonical JSON. */
export const argumentsDigest = (args: ToolArgs): string =>
  `sha256:${createHash('sha256').update(canonical(args)).digest('hex')}`;

/** The arguments as written to the trail: secrets replaced, long strings cut, depth bounded. */
export function redactArguments(args: ToolArgs, extraKeys: readonly string[] = []): unknown {
  const extra = new Set(extraKeys.map((k) => k.toLowerCase()));
  const walk = (value: unknown, depth: number): unknown => {
    if (typeof value === 'string') {
      let text = value;
      for (const pattern of SECRET_TEXT) text = text.replace(pattern, '[redacted]');
      return text.length > MAX_STRING
        ? `${text.slice(0, MAX_STRING)}… [${text.length - MAX_STRING} more characters]`
        : text;
    }
    if (value === null || typeof value !== 'object') return value;
    if (depth >= MAX_DEPTH) return '[deeper values left out]';
    if (Array.isArray(value)) return value.map((v) => walk(v, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      out[key] =
        SECRET_KEY.test(key) || extra.has(key.toLowerCase()) ? '[redacted]' : walk(v, depth + 1);
    }
    return out;
  };
  return walk(args, 0);
}

/** The layer that refused a call, by the refusal's error code (any other code: the call ran). */
const REFUSED_BY: Readonly<Record<string, string>> = {
  UNKNOWN_TOOL: 'registry',
  INVALID_ARGS: 'registry',
  SANDBOX_VIOLATION: 'sandbox',
  DENIED: 'policy',
};

/**
 * Writes one line per call to `log`: time, identity, tool, call id, the arguments' digest and
 * the arguments with secrets redacted, the decision (which layer, and for the permission policy
 * the rule, its source, and whether a person allowed it), the result's status and the duration.
 * Install it on the registry whose calls it records: it observes results (calls the registry
 * refuses before any policy included) and times each call from the outermost interceptor.
 * Writing a line never changes a call's result; a line the disk refuses goes to `onError`.
 */
export function attachAudit(registry: Pick<ToolRegistry, 'use' | 'on'>, options: AuditOptions) {
  const started = new Map<string, number>();
  const verdicts = new Map<string, { decision: PermissionVerdict; answer?: string }>();
  const report = (error: unknown) => {
    try {
      options.onError?.(error);
    } catch {
      // An error hook that throws must not break a call.
    }
  };

  const unuse = registry.use(
    (exec, next) => {
      started.set(exec.callId, performance.now());
      return next();
    },
    { name: 'audit', priority: Number.MAX_SAFE_INTEGER },
  );

  const off = registry.on('result', (result: ToolExecutionResult, exec: ToolExecution) => {
    const begin = started.get(exec.callId);
    started.delete(exec.callId);
    const verdict = verdicts.get(exec.callId);
    verdicts.delete(exec.callId);
    const identity = options.identityOf?.(exec);
    const code = result.isError ? result.error?.code : undefined;
    const decision = verdict
      ? {
          layer: 'permission',
          behavior: verdict.decision.behavior,
          ...verdict.decision.decidedBy,
          ...(verdict.answer ? { answer: verdict.answer } : {}),
          ...(verdict.answer === 'allow' ? { approvedBy: 'person' } : {}),
        }
      : code !== undefined && Object.hasOwn(REFUSED_BY, code)
        ? { layer: REFUSED_BY[code], behavior: 'deny' }
        : { layer: 'none', behavior: 'allow' };
    try {
      options.log.append({
        kind: 'call',
        callId: exec.callId,
        ...(identity !== undefined ? { identity } : {}),
        tool: exec.name,
        argsDigest: argumentsDigest(exec.arguments),
        args: redactArguments(exec.arguments, options.redactKeys),
        decision,
        status: result.isError ? 'error' : 'ok',
        ...(code ? { errorCode: code } : {}),
        durationMs: begin === undefined ? 0 : Math.round((performance.now() - begin) * 1000) / 1000,
      });
    } catch (error) {
      report(error);
    }
  });

  return {
    /** The permission interceptor's `onDecision`: the rule and answer land in the call's line. */
    onPermissionDecision(exec: InterceptedExecution, decision: PermissionVerdict, answer?: string) {
      verdicts.set(exec.callId, { decision, ...(answer ? { answer } : {}) });
    },
    /** Stops recording: the timing interceptor and the observer go (the log stays open). */
    detach() {
      unuse();
      off();
    },
  };
}
