import { resolve } from 'node:path';
import { baseName, DANGEROUS_ENV } from './names';
import { parseShell, type ShellNode } from './parser';
import { findExecs, unwrap } from './unwrap';
import { evalWord, type ShellWord } from './words';

/** One simple command a command line runs, after wrappers are seen through. */
export interface ShellCommand {
  readonly argv: readonly ShellWord[];
  /** Wrappers it was found inside (`timeout`, `bash -c`, ...), outermost first. */
  readonly via: readonly string[];
  /** Why this command cannot be fully understood; set = never allowed. */
  readonly unknown?: string;
  /** Directories its relative operands may resolve against (`null`: unknown, after `cd $X`). */
  readonly cwds: readonly (string | null)[];
}

/** A redirection to or from a file. */
export interface ShellRedirect {
  readonly op: string;
  readonly target: ShellWord;
  readonly access: 'read' | 'write';
  readonly cwds: readonly (string | null)[];
}

/** Everything a command line runs, reads and writes, and what could not be understood. */
export interface ShellAnalysis {
  readonly commands: ShellCommand[];
  readonly redirects: ShellRedirect[];
  /** Syntax errors and constructs that make the whole line not understood. */
  readonly problems: string[];
}

/** Nesting of `bash -c` / `eval` strings followed before giving up (not understood). */
const MAX_DEPTH = 8;
const MAX_CWDS = 8;

interface State {
  readonly out: ShellAnalysis;
  cwds: (string | null)[];
  readonly home: string;
}

/** Splits a command line into every command it runs. Requires the shell parser to be loaded. */
export function analyzeShell(line: string, cwd: string, home: string): ShellAnalysis {
  const state: State = { out: { commands: [], redirects: [], problems: [] }, cwds: [cwd], home };
  analyzeInto(line, [], 0, state);
  return state.out;
}

function analyzeInto(line: string, via: readonly string[], depth: number, state: State): void {
  if (depth > MAX_DEPTH) {
    state.out.problems.push(
      `commands nested more than ${MAX_DEPTH} levels deep (${via.join(' → ')})`,
    );
    return;
  }
  const parsed = parseShell(line);
  if ('error' in parsed) {
    state.out.problems.push(parsed.error);
    return;
  }
  try {
    walk(parsed.root, parsed.source, via, depth, state);
  } catch (error) {
    if (error instanceof RangeError)
      state.out.problems.push('the command is nested too deeply to read');
    else throw error;
  }
}

const snippet = (src: string, node: ShellNode): string => {
  const text = src.slice(node.start, node.end);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
};

const ARITHMETIC_TEST = /\s-(eq|ne|lt|le|gt|ge)\s/;

/** Whether a node starts an arithmetic context, where bash evaluates variables' values as code. */
const arithmetic = (node: ShellNode, src: string): boolean =>
  node.type === 'arithmetic_expansion' ||
  node.type === 'c_style_for_statement' ||
  node.type === 'subscript' ||
  (node.type === 'compound_statement' && node.children[0]?.type === '((') ||
  (node.type === 'test_command' && ARITHMETIC_TEST.test(src.slice(node.start, node.end)));

function walk(
  node: ShellNode,
  src: string,
  via: readonly string[],
  depth: number,
  state: State,
  inArithmetic = false,
): void {
  const arith = inArithmetic || arithmetic(node, src);
  if (
    arith &&
    (node.type === 'variable_name' || node.type === 'simple_expansion' || node.type === 'expansion')
  ) {
    // `x='a[$(rm -rf /)]'; (( x ))` runs rm: arithmetic evaluates a variable's value as an expression.
    const problem = `arithmetic on ${JSON.stringify(snippet(src, node))}, whose value bash evaluates as an expression that may run commands`;
    if (!state.out.problems.includes(problem)) state.out.problems.push(problem);
  }
  if (node.type === 'ERROR') {
    state.out.problems.push(`a syntax error near ${JSON.stringify(snippet(src, node))}`);
  } else if (node.missing) {
    state.out.problems.push(`a syntax error: missing ${JSON.stringify(node.type)}`);
  }
  switch (node.type) {
    case 'command':
      command(node, src, via, depth, state);
      break;
    case 'file_redirect':
      redirect(node, src, state);
      break;
    case 'variable_assignment': {
      const name = node.children.find((c) => c.field === 'name');
      const variable = name ? src.slice(name.start, name.end) : '';
      if (DANGEROUS_ENV.has(variable)) {
        state.out.commands.push({
          argv: [evalWord(node, src)],
          via,
          unknown: `it sets ${variable}, which changes what later commands run or load`,
          cwds: state.cwds,
        });
      }
      break;
    }
    case 'command_substitution': {
      const text = src.slice(node.start, node.end);
      if (text.startsWith('`') && text.includes('\\')) {
        // Inside backticks bash removes one level of \\, \` and \$ before parsing the body, so a
        // nested `\`cmd\`` is a substitution the parser (reading it as one level) cannot see.
        const body = text
          .slice(1, text.endsWith('`') ? -1 : undefined)
          .replace(/\\([\\`$])/g, '$1');
        analyzeInto(body, [...via, '`…`'], depth + 1, state);
        return;
      }
      break;
    }
  }
  for (const child of node.children) walk(child, src, via, depth, state, arith);
}

function command(
  node: ShellNode,
  src: string,
  via: readonly string[],
  depth: number,
  state: State,
): void {
  const argv: ShellWord[] = [];
  for (const child of node.children) {
    if (child.field === 'name') {
      const word = child.children[0];
      argv.unshift(word ? evalWord(word, src) : evalWord(child, src));
    } else if (child.field === 'argument') {
      argv.push(evalWord(child, src));
    }
  }
  if (argv.length === 0) return;
  run(argv, via, depth, state);
}

function run(
  argv: readonly ShellWord[],
  via: readonly string[],
  depth: number,
  state: State,
): void {
  const result = unwrap(argv, via);
  if (result.kind === 'script') {
    analyzeInto(result.script.value, result.via, depth + 1, state);
    return;
  }
  const cwds = state.cwds;
  if (result.kind === 'unknown') {
    state.out.commands.push({ argv: result.argv, via: result.via, unknown: result.reason, cwds });
    return;
  }
  state.out.commands.push({ argv: result.argv, via: result.via, cwds });
  for (const inner of findExecs(result.argv))
    run(inner, [...result.via, 'find -exec'], depth + 1, state);
  trackDirectory(result.argv, state);
}

/** `cd dir` changes what later relative paths mean: keep every directory they may mean. */
function trackDirectory(argv: readonly ShellWord[], state: State): void {
  const name = baseName(argv[0]?.value ?? '');
  if (name !== 'cd' && name !== 'pushd' && name !== 'popd') return;
  const operands = argv
    .slice(1)
    .filter((w) => !(w.literal && w.value.startsWith('-') && w.value !== '-'));
  const target = operands[0];
  const known =
    name !== 'popd' &&
    target !== undefined &&
    target.literal &&
    !target.glob &&
    target.value !== '-';
  const next = new Set(state.cwds);
  if (!known) next.add(null);
  else {
    const dir =
      target.value === '~' || target.value.startsWith('~/')
        ? state.home + target.value.slice(1)
        : target.value;
    for (const c of state.cwds) next.add(c === null ? null : resolve(c, dir));
  }
  state.cwds = next.size > MAX_CWDS ? [...state.cwds, null] : [...next];
}

const WRITE_OPS = new Set(['>', '>>', '>|', '&>', '&>>', '>&', '<>']);

function redirect(node: ShellNode, src: string, state: State): void {
  const opNode = node.children.find((c) => !c.named);
  const op = opNode ? src.slice(opNode.start, opNode.end) : '';
  const dest = node.children.find((c) => c.field === 'destination');
  if (dest === undefined) return;
  const target = evalWord(dest, src);
  if ((op === '>&' || op === '<&') && target.literal && /^(\d+|-)$/.test(target.value)) return;
  if (op === '<&' || op === '>&-') return;
  const access = WRITE_OPS.has(op) ? 'write' : 'read';
  state.out.redirects.push({ op, target, access, cwds: state.cwds });
  if (op === '<>') state.out.redirects.push({ op, target, access: 'read', cwds: state.cwds });
}
