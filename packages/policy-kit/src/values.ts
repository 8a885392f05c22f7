/**
 * Whether a value is a non-null object that is not an array: something whose named fields a
 * policy may read (a settings block, a hook's JSON answer, an approver's decision). This is the
 * one meaning of "record" in the policies; where arrays count too (a container a path hint walks
 * into), the code says so in its own words. Never throws: a revoked Proxy counts as an object,
 * and reading it then fails where reads are guarded.
 */
export const isRecord = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null) return false;
  try {
    return !Array.isArray(value);
  } catch {
    return true;
  }
};

/**
 * A bad value as an error message quotes it: its JSON (`"x"`, `{"a":1}`, `[1,2]`, `null`), or
 * `undefined`, `a function`, `12n` for what JSON cannot show, cut to `max` characters with `…`.
 * Never throws: a value whose JSON cannot be made (a cycle, a throwing `toJSON` or getter) is
 * `an unreadable object` (or array), so that describing a failure never becomes a failure.
 */
export const quoteValue = (value: unknown, max = 200): string => {
  let text: string;
  try {
    text =
      value === undefined
        ? 'undefined'
        : typeof value === 'function'
          ? 'a function'
          : typeof value === 'bigint'
            ? `${value}n`
            : (JSON.stringify(value) ?? String(value));
  } catch {
    let array = false;
    try {
      array = Array.isArray(value);
    } catch {}
    text = array ? 'an unreadable array' : `an unreadable ${typeof value}`;
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
};
