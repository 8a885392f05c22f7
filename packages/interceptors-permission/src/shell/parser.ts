import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Parser } from 'web-tree-sitter';

/** A syntax node copied out of the parser into plain JavaScript (cheap to walk). */
export interface ShellNode {
  readonly type: string;
  /** The field this node fills in its parent (`name`, `argument`, `redirect`, ...). */
  readonly field: string | null;
  readonly named: boolean;
  readonly missing: boolean;
  readonly start: number;
  readonly end: number;
  readonly children: ShellNode[];
}

/** A parsed command line: its source and root node, or why it could not be parsed. */
export type ParsedShell =
  | { readonly source: string; readonly root: ShellNode }
  | { readonly error: string };

let loading: Promise<Parser> | undefined;
let parser: Parser | undefined;
/**
 * A node type's name and whether it is named, by type id, filled as types are met. Both follow
 * from the id, so the parser is asked once per type instead of once per node.
 */
let kinds: ({ readonly type: string; readonly named: boolean } | undefined)[] = [];

/**
 * Loads tree-sitter and its bash grammar (wasm) once per process. Async because WebAssembly
 * compiles asynchronously; after it resolves, parsing is synchronous. tree-sitter's JavaScript is
 * imported here too, not at the top: importing the package must stay cheap for a host that never
 * checks a shell command.
 */
export function loadShellParser(): Promise<void> {
  loading ??= (async () => {
    const { Language, Parser } = await import('web-tree-sitter');
    await Parser.init();
    // The build copies the grammar's wasm beside the bundle (dist/), so the package ships it
    // without depending on tree-sitter-bash (C sources, native prebuilds, an install script). From
    // the sources (tests), it comes from tree-sitter-bash itself, a development dependency.
    const beside = fileURLToPath(new URL('tree-sitter-bash.wasm', import.meta.url));
    const wasm = await readFile(
      existsSync(beside)
        ? beside
        : createRequire(import.meta.url).resolve('tree-sitter-bash/tree-sitter-bash.wasm'),
    );
    const language = await Language.load(new Uint8Array(wasm));
    const p = new Parser();
    p.setLanguage(language);
    kinds = [];
    parser = p;
    return p;
  })();
  // A failed load may be retried by the next caller.
  loading.catch(() => {
    loading = undefined;
  });
  return loading.then(() => undefined);
}

/** Whether {@link loadShellParser} has finished. */
export const shellParserLoaded = (): boolean => parser !== undefined;

/** The longest command line parsed; longer ones are not understood (never allowed). */
export const MAX_COMMAND_LENGTH = 65_536;

/** Parses a command line into plain nodes. Requires {@link loadShellParser} to have resolved. */
export function parseShell(source: string): ParsedShell {
  if (parser === undefined) return { error: 'the shell parser is not loaded' };
  if (source.length > MAX_COMMAND_LENGTH) {
    return { error: `the command is longer than ${MAX_COMMAND_LENGTH} characters` };
  }
  const tree = parser.parse(source);
  if (tree === null) return { error: 'the shell parser gave up on the command' };
  try {
    const cursor = tree.walk();
    // A missing node (one the parser inserted to recover from an error) makes every node above it
    // have an error, so in a tree whose root has none the cursor need not be asked, node by node
    // (each question costs a call into the parser's memory).
    const anyMissing = tree.rootNode.hasError;
    try {
      const language = tree.language;
      const copy = (): ShellNode => {
        const id = cursor.nodeTypeId;
        let kind = kinds[id];
        if (kind === undefined) {
          kind = { type: language.types[id] || 'ERROR', named: language.nodeTypeIsNamed(id) };
          kinds[id] = kind;
        }
        const node: ShellNode = {
          type: kind.type,
          field: cursor.currentFieldName,
          named: kind.named,
          missing: anyMissing && cursor.nodeIsMissing,
          start: cursor.startIndex,
          end: cursor.endIndex,
          children: [],
        };
        if (cursor.gotoFirstChild()) {
          do node.children.push(copy());
          while (cursor.gotoNextSibling());
          cursor.gotoParent();
        }
        return node;
      };
      return { source, root: copy() };
    } catch (error) {
      // Nesting deeper than the JavaScript stack: not understood, so never allowed.
      if (error instanceof RangeError) return { error: 'the command is nested too deeply to read' };
      throw error;
    } finally {
      cursor.delete();
    }
  } finally {
    tree.delete();
  }
}
