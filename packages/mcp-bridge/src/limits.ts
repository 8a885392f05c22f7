import type { McpServerConfig } from './types';

/** Per-call limit without progress when the config sets none, ms. */
export const DEFAULT_TIMEOUT = 60_000;
/** Start + handshake, and each whole listing, when the config sets none, ms. */
export const DEFAULT_STARTUP_TIMEOUT = 30_000;
/** setTimeout fires at once above this; "no limit" is this. */
export const NO_LIMIT = 2_147_483_647;
/** At most this many `tools/list` pages in one listing. */
export const MAX_PAGES = 1_000;
/** At most this many tools from one server (documented in the README). */
export const MAX_TOOLS = 10_000;
/** A longer description is cut here: a model's context is not the place for a manual. */
export const MAX_DESCRIPTION = 16_384;

/** Largest message accepted from a server (a stdio line, an HTTP body) when the config sets none. */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** The startup bound, ms; `startupTimeoutMs: 0` means none, like `timeoutMs: 0`. */
export function startupBound(config: Pick<McpServerConfig, 'startupTimeoutMs'>): number {
  const ms = config.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT;
  return ms === 0 ? NO_LIMIT : Math.min(ms, NO_LIMIT);
}
