/**
 * Output a terminal can show safely. What a sandboxed command prints comes back to a host that
 * may print it on a person's terminal, or to a model that may quote it there: an escape sequence
 * in it would act on that terminal (OSC 52 writes the clipboard, CSI clears the screen or moves
 * the cursor over earlier lines, OSC 0 sets the window title), and a bidi override would make the
 * text read differently from what it is ("Trojan Source"). So every such character is rewritten as
 * visible text, and what is left is inert.
 */

// C0 controls but tab and newline, DEL, the C1 controls (U+009B is an 8-bit CSI, U+009D an 8-bit
// OSC), and the bidi embeddings, overrides and isolates.
const CONTROLS = '\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069';
const ANY_CONTROL = new RegExp(`[${CONTROLS}]`);
const EVERY_CONTROL = new RegExp(`[${CONTROLS}]`, 'g');

const hex = (code: number, width: number): string => code.toString(16).padStart(width, '0');

const visible = (ch: string): string => {
  const code = ch.charCodeAt(0);
  return code <= 0xff ? `\\x${hex(code, 2)}` : `\\u${hex(code, 4)}`;
};

/**
 * Rewrites every terminal control character of `text` as visible text, and leaves everything
 * else as it was: ESC becomes the four characters `\x1b`, BEL `\x07`, a carriage return `\x0d`,
 * the 8-bit CSI `\x9b`, a right-to-left override `\u202e` (the notation of a JavaScript string,
 * which a person and a model both read). Newline and tab stay: they only move to the next line or
 * tab stop, and every log needs them. Rewritten are: every C0 control but those two (U+0000–U+0008,
 * U+000B–U+001F), DEL (U+007F), the C1 controls (U+0080–U+009F), and the bidi embeddings,
 * overrides and isolates (U+202A–U+202E, U+2066–U+2069).
 *
 * A backslash is not escaped, so a program that prints the four characters `\x1b` looks the same
 * as one that printed ESC. That is deliberate: the result is for reading, never decoded back, and
 * both spellings are equally inert; escaping every backslash instead would change Windows paths,
 * regular expressions and JSON in every ordinary output, which a reader would then have to undo.
 */
export function escapeControls(text: string): string {
  // The common case (no control at all) returns the same string without building a new one.
  if (!ANY_CONTROL.test(text)) return text;
  return text.replace(EVERY_CONTROL, visible);
}
