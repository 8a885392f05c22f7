/**
 * A label for cordis's effect diagnostics from whatever the caller passed (a tool definition, a
 * server config): its `name`, quoted and capped, or `?`. It cannot throw.
 */
export const nameLabel = (value: unknown): string => {
  try {
    const name = (value as { name?: unknown } | null)?.name;
    return typeof name === 'string' ? JSON.stringify(name.slice(0, 64)) : '?';
  } catch {
    return '?';
  }
};
