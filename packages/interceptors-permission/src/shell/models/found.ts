import type { ShellWord } from '../words';

/**
 * What find puts for `{}`: a path it found, not known before it runs, but never an option (every
 * path find yields starts with a start path, and those are checked not to).
 */
export const FOUND: ShellWord = { value: '{}', literal: false, glob: false, text: '{}' };
