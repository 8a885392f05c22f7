/** A compiled matcher: whether a hook applies to a tool name. */
export type ToolMatcher = (toolName: string) => boolean;

/** A list of plain names (`Edit|Write`, `Bash`, `mcp__fs__read_file`): compared exactly. */
const NAME_LIST = /^[\w\s|-]+$/;

/**
 * Compiles a Claude Code matcher. `*`, empty or absent match every tool; a string of plain names
 * separated by `|` matches those names exactly (spaces around a name are ignored); anything else is
 * a JavaScript regular expression tested unanchored against the tool name, as Claude Code does.
 * Throws a `SyntaxError` naming the matcher when the expression does not compile, so a typo fails
 * loading instead of silently matching nothing.
 */
export const compileMatcher = (matcher: string | undefined): ToolMatcher => {
  if (matcher === undefined) return () => true;
  const trimmed = matcher.trim();
  if (trimmed === '' || trimmed === '*') return () => true;
  if (NAME_LIST.test(trimmed)) {
    const names = new Set(
      trimmed
        .split('|')
        .map((name) => name.trim())
        .filter((name) => name !== ''),
    );
    // "|" alone names nothing; an empty set would silently disable the hook, so it matches all,
    // like the empty matcher it amounts to.
    if (names.size === 0) return () => true;
    return (toolName) => names.has(toolName);
  }
  let regex: RegExp;
  try {
    regex = new RegExp(matcher);
  } catch (error) {
    throw new SyntaxError(
      `matcher ${JSON.stringify(matcher)} is not a valid regular expression (${
        error instanceof Error ? error.message : String(error)
      }); write a tool name, names separated by "|", "*", or a valid JavaScript regular expression`,
    );
  }
  // Tool names are few: each is tested once per matcher, and a slow expression costs once.
  const seen = new Map<string, boolean>();
  return (toolName) => {
    let hit = seen.get(toolName);
    if (hit === undefined) {
      regex.lastIndex = 0;
      hit = regex.test(toolName);
      if (seen.size < 4096) seen.set(toolName, hit);
    }
    return hit;
  };
};
