import type { McpReconnectPolicy } from './types';

/** A reconnect policy with every default filled in. */
export type ReconnectSettings = Required<McpReconnectPolicy>;

/** The policy's fields, or their defaults (8 attempts, 250 ms doubling up to 30 s, 5 minutes). */
export function reconnectSettings(
  policy: McpReconnectPolicy | false | undefined,
): ReconnectSettings {
  const p = policy || {};
  return {
    maxAttempts: p.maxAttempts ?? 8,
    initialDelayMs: p.initialDelayMs ?? 250,
    maxDelayMs: p.maxDelayMs ?? 30_000,
    factor: p.factor ?? 2,
    budgetMs: p.budgetMs ?? 300_000,
  };
}

/**
 * The wait before reconnection attempt `attempt` (from 1): exponential up to `maxDelayMs`, then
 * jittered into its upper half, so that many bridges to one restarted server do not all knock at
 * once. `random` is `Math.random` outside tests.
 */
export function backoffDelay(
  settings: ReconnectSettings,
  attempt: number,
  random: () => number = Math.random,
): number {
  const base = Math.min(
    settings.maxDelayMs,
    settings.initialDelayMs * settings.factor ** (attempt - 1),
  );
  return base / 2 + random() * (base / 2);
}

/** Resolves after `ms`, or at once when `signal` aborts (it never rejects). */
export const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

/**
 * Resolves when `pending` settles (either way), after `ms`, or when `signal` aborts, whichever
 * comes first; it never rejects. A call waiting for a reconnect is bounded by all three.
 */
export async function settledWithin(
  pending: Promise<unknown>,
  ms: number,
  signal: AbortSignal,
): Promise<void> {
  // An abort event never fires for a signal that has already aborted.
  if (signal.aborted) return;
  let timer: NodeJS.Timeout | undefined;
  const bound = new AbortController();
  const stop = () => bound.abort();
  signal.addEventListener('abort', stop, { once: true });
  await Promise.race([
    pending.then(
      () => {},
      () => {},
    ),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      bound.signal.addEventListener('abort', () => resolve(), { once: true });
    }),
  ]);
  clearTimeout(timer);
  signal.removeEventListener('abort', stop);
}
