// What a README promises a user, read the way the user reads it: its install line (the first shell
// block with an `npm install`) and its TypeScript blocks, each an example that must typecheck and
// run as written. The README marks the exceptions in an HTML comment on the line before a block:
//
//   <!-- example: continues -->
//     the block goes on from the one before it (uses its imports and variables): it is checked and
//     run together with that block (and with whatever that block continues).
//   <!-- example: typecheck only: <reason> -->
//     typechecked but not run, for a reason the reader is told (it needs a server of the reader's
//     own, for instance). Combines with `continues`: `<!-- example: continues, typecheck only: … -->`.
//   <!-- example: node 22 -->
//     run on that Node major (installed from npm's `node` package), for an example whose
//     dependency needs a later Node than the one the checks run on; the README says so.
//
// Anything else after `example:` is an error, as is a marker with no block after it or a
// continuation with no block before it: a typo must not silently skip an example.

const FENCE = /^(`{3,}|~{3,})\s*([\w+-]*)/;
const MARKER = /^<!--\s*example:\s*(.*?)\s*-->\s*$/;
const TYPESCRIPT = new Set(['ts', 'typescript', 'tsx', 'mts']);
const SHELL = new Set(['sh', 'bash', 'shell', 'console']);

/**
 * Reads a marker's text (what follows `example:`) into `{ continues, typecheckOnly }`.
 * @throws {Error} naming the file and line on a word it does not know.
 */
export function parseMarker(text, where) {
  const marker = { continues: false, typecheckOnly: undefined };
  for (const part of text.split(/,\s*/)) {
    const only = /^typecheck only:\s*(\S.*)$/.exec(part);
    const node = /^node (\d{2,})$/.exec(part);
    if (part === 'continues') marker.continues = true;
    else if (only) marker.typecheckOnly = only[1];
    else if (node) marker.node = node[1];
    else {
      throw new Error(
        `${where}: unknown example marker "${part}"; write "continues", "node <major>" or "typecheck only: <reason>".`,
      );
    }
  }
  return marker;
}

/**
 * The fenced blocks of a Markdown text: `{ line, lang, code, marker }`, line 1-based (the fence's
 * line), marker the parsed `<!-- example: … -->` right before it (blank lines between allowed).
 * @throws {Error} on an unclosed fence or a marker that no block follows.
 */
export function fencedBlocks(markdown, file = 'README.md') {
  const lines = markdown.split(/\r?\n/);
  const blocks = [];
  let pending;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const marker = MARKER.exec(line.trim());
    if (marker) {
      if (pending)
        throw new Error(`${file}:${pending.line}: an example marker with no block after it.`);
      pending = { line: i + 1, ...parseMarker(marker[1], `${file}:${i + 1}`) };
      continue;
    }
    const fence = FENCE.exec(line);
    if (!fence) {
      if (pending && line.trim() !== '') {
        throw new Error(`${file}:${pending.line}: an example marker with no block after it.`);
      }
      continue;
    }
    const close = fence[1];
    const body = [];
    let j = i + 1;
    while (
      j < lines.length &&
      !(
        lines[j].startsWith(close[0].repeat(close.length)) &&
        lines[j].trim().replace(/[`~]/g, '') === ''
      )
    ) {
      body.push(lines[j]);
      j++;
    }
    if (j === lines.length) throw new Error(`${file}:${i + 1}: a code block that is never closed.`);
    blocks.push({
      line: i + 1,
      lang: fence[2].toLowerCase(),
      code: `${body.join('\n')}\n`,
      marker: pending ?? { continues: false, typecheckOnly: undefined },
    });
    pending = undefined;
    i = j;
  }
  if (pending)
    throw new Error(`${file}:${pending.line}: an example marker with no block after it.`);
  return blocks;
}

/**
 * The README's install line(s): every `npm install` / `npm i` line (not global) of the first shell
 * block that has one, comments stripped. A README with TypeScript examples and none is an error.
 */
export function installCommands(blocks, file = 'README.md') {
  for (const block of blocks) {
    if (!SHELL.has(block.lang)) continue;
    const commands = block.code
      .split('\n')
      .map((l) => l.replace(/\s+#.*$/, '').trim())
      .filter((l) => /^npm (install|i)\s/.test(l))
      .filter((l) => !/\s(-g|--global)(\s|$)/.test(l));
    if (commands.length > 0) return commands.map((c) => c.split(/\s+/).slice(1));
  }
  throw new Error(
    `${file}: TypeScript examples but no install line (a shell block with "npm install <packages>"); add one so a reader knows what to install.`,
  );
}

/**
 * The README's examples: one per TypeScript block, `{ line, code, run, reason, chain }` where code
 * is the block with every block it continues before it, and `run` is false for a typecheck-only
 * block (or one continuing it) and for one that a later block continues (it runs as part of that
 * one).
 * @throws {Error} on a continuation with no TypeScript block before it.
 */
export function examples(blocks, file = 'README.md') {
  const ts = blocks.filter((b) => TYPESCRIPT.has(b.lang));
  const out = [];
  for (let i = 0; i < ts.length; i++) {
    const block = ts[i];
    let code = block.code;
    let typecheckOnly = block.marker.typecheckOnly;
    let node = block.marker.node;
    const chain = [block.line];
    if (block.marker.continues) {
      const before = out[i - 1];
      if (!before) {
        throw new Error(
          `${file}:${block.line}: marked "continues" but no TypeScript block comes before it.`,
        );
      }
      code = `${before.code}\n${block.code}`;
      chain.unshift(...before.chain);
      // What cannot run cannot be run as part of what continues it.
      typecheckOnly ??= before.typecheckOnly;
      node ??= before.node;
      // A block runs as part of its continuation, unless that one is only typechecked.
      if (typecheckOnly === undefined) before.continuedBy = block.line;
    }
    out.push({ line: block.line, code, chain, typecheckOnly, node });
  }
  return out.map((e) => ({
    line: e.line,
    code: e.code,
    chain: e.chain,
    reason: e.typecheckOnly,
    ...(e.node ? { node: e.node } : {}),
    run: e.typecheckOnly === undefined && e.continuedBy === undefined,
  }));
}
