/** A compiled matcher: whether a hook applies to a tool name. */
export type ToolMatcher = (toolName: string) => boolean;

/** A list of plain names (`Edit|Write`, `Bash`, `mcp__fs__read_file`): compared exactly. */
const NAME_LIST = /^[\w\s|-]+$/;

/**
 * Compiles a Claude Code matcher. `*`, empty or absent match every tool; a string of plain names
 * separated by `|` matches those names exactly (spaces around a name are ignored); anything else is
 * a JavaScript regular expression tested unanchored against the tool name, as Claude Code does.
 * Throws a `SyntaxError` naming the matcher when the expression does not compile, or when a list
 * names no tool at all (`"|"`), so a typo fails loading instead of silently matching nothing or
 * everything.
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
    // "|" alone names no tool. Read as no tool it would silently disable a guard hook; read as
    // every tool it would run a hook written for some tools (one that rewrites input, say) on all
    // of them. Neither is what the author wrote, so loading fails and the person says which.
    if (names.size === 0) {
      throw new SyntaxError(
        `matcher ${JSON.stringify(matcher)} names no tool (only "|" and spaces); write "*" (or leave the matcher out) for every tool, or the tool names separated by "|" ("Edit|Write")`,
      );
    }
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
