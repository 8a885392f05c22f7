/**
 * The o200k encoding alone (the tokenizer of current OpenAI models), for `inspect`'s token counts.
 * The build bundles it with gpt-tokenizer's code into dist/o200k.mjs, so that the package ships
 * this one encoding (2.6 MB, loaded by `inspect` only) instead of depending on gpt-tokenizer and
 * its every encoding (29 MB on every install). Counts are gpt-tokenizer's own, exactly.
 */
export { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
