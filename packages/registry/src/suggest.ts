/** Edit distance of two short strings, stopping early once it exceeds `limit`. */
const distance = (a: string, b: string, limit: number): number => {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current.push(value);
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length]!;
};

/**
 * The registered names closest to a name the model got wrong (a typo, another casing, a missing
 * server prefix), best first. A model that reads "did you mean read_file?" fixes its call in one
 * retry instead of guessing.
 */
export const closestNames = (wanted: string, names: Iterable<string>, max = 3): string[] => {
  const probe = wanted.slice(0, 64).toLowerCase();
  const limit = Math.max(2, Math.floor(probe.length / 3));
  const scored: { name: string; score: number }[] = [];
  for (const name of names) {
    const lower = name.toLowerCase();
    let score = distance(probe, lower, limit);
    // A suffix match catches a missing prefix: "read_file" for "mcp__fs__read_file".
    if (score > limit && probe.length >= 3 && (lower.endsWith(probe) || probe.endsWith(lower))) {
      score = limit;
    }
    if (score <= limit) scored.push({ name, score });
  }
  scored.sort((x, y) => x.score - y.score || (x.name < y.name ? -1 : 1));
  return scored.slice(0, max).map((s) => s.name);
};
