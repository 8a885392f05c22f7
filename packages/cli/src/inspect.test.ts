import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { tokenCounter } from './inspect';

describe('tokenCounter', () => {
  it('counts o200k tokens exactly as gpt-tokenizer does', async () => {
    const count = await tokenCounter();
    // Known o200k counts: a space before a word joins its token; JSON punctuation merges.
    expect(count('hello world')).toBe(2);
    expect(count('')).toBe(0);
    for (const text of [
      JSON.stringify({
        name: 'read_file',
        description: 'Reads a UTF-8 text file.',
        parameters: { type: 'object' },
      }),
      'Ünïcödé, emoji 🎉 and 中文 text',
    ]) {
      expect(count(text)).toBe(countTokens(text));
    }
  });
});
