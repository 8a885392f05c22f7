import type { TextContent } from '@dsh-tools/protocol';
import type { HookFeedbackMeta } from './types';

/** The `_meta` key of the blocks this package appends to a result. */
export const HOOKS_META_KEY = 'dsh-tools/hooks';

/**
 * A text block appended to a tool's result for the model: hook context is addressed to the
 * assistant, and `_meta` carries the structured entries so a host can tell hook text apart.
 */
export const feedbackBlock = (text: string, meta: HookFeedbackMeta): TextContent => ({
  type: 'text',
  text,
  ...(meta.kind === 'context' && { annotations: { audience: ['assistant'] } }),
  _meta: { [HOOKS_META_KEY]: meta },
});
