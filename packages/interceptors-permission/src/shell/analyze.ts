import { resolve } from 'node:path';
import {
  expansionEffects,
  joinContinuations,
  joinedWords,
  snippet,
  testProblem,
} from './evaluation';
import { modelCommand, type ProgramEffects } from './models/index';
import { baseName, envAllowed } from './names';
import { parseShell, type ShellNode } from './parser';
import { unaliasProc } from './proc-alias';
import { unwrap } from './unwrap';
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
  /** What its program's model says it does; absent for a program without a model. */
  readonly effects?: ProgramEffects;
}

/**
 * A redirection to or from a file, or a file a program or wrapper opens beside its purpose
 * (`sort -o`, `time -o`, `xargs -a`, `flock FILE`), judged the same way.
 */
export interface ShellRedirect {
  /** The operator, or what opens the file (`sort -o`). */
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
export const MAX_DEPTH = 8;
const MAX_CWDS = 8;

interface State {
  readonly out: ShellAnalysis;
  cwds: (string | null)[];
  readonly home: string;
  /** Where prefix assignments (`X=… cmd`) start: they give X to the command. */
  readonly prefixes: Set<number>;
}

/** Splits a command line into every command it runs. Requires the shell parser to be loaded. */
export function analyzeShell(line: string, cwd: string, home: string): ShellAnalysis {
  const state: State = {
    out: { commands: [], redirects: [], problems: [] },
    cwds: [cwd],
    home,
    prefixes: new Set(),
  };
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
  const parsed = parseShell(joinContinuations(line));
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

const ARITHMETIC_TEST = /\s-(eq|ne|lt|le|gt|ge)\s/;

/** Whether a node starts an arithmetic context, where bash evaluates variables' values as code. */
const arithmetic = (node: ShellNode, src: string): boolean =>
  node.type === 'arithmetic_expansion' ||
  node.type === 'c_style_for_statement' ||
  (node.type === 'compound_statement' && node.children[0]?.type === '((') ||
  // `[[ a -eq b ]]` evaluates its operands as arithmetic; `[ ]` and `test` compare integers only.
  (node.type === 'test_command' &&
    node.children[0]?.type === '[[' &&
    ARITHMETIC_TEST.test(src.slice(node.start, node.end)));

/** `$#`, `$?`, `$$`, `$!`, `${#x}`: always numbers, so evaluating them runs nothing. */
const numericParameter = (node: ShellNode, src: string): boolean =>
  /^(\$[#?$!]|\$\{#[A-Za-z_][A-Za-z0-9_]*\})$/.test(src.slice(node.start, node.end));

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
    (node.type === 'variable_name' ||
      node.type === 'simple_expansion' ||
      node.type === 'expansion') &&
    !numericParameter(node, src)
  ) {
    // `x='a[$(rm -rf /)]'; (( x ))` runs rm: arithmetic evaluates a variable's value as an expression.
    problem(
      state,
      `arithmetic on ${JSON.stringify(snippet(src, node))}, whose value bash evaluates as an expression that may run commands`,
    );
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
    case 'declaration_command':
    case 'unset_command':
      declaration(node, src, via, depth, state);
      break;
    case 'test_command': {
      const found = testProblem(node, src);
      if (found !== undefined) problem(state, found);
      break;
    }
    case 'expansion': {
      const found = expansionEffects(node, src);
      for (const p of found.problems) problem(state, p);
      for (const script of found.scripts)
        analyzeInto(script, [...via, 'expansion'], depth + 1, state);
      break;
    }
    case 'file_redirect':
      // `<>` is read as `<` and an ERROR `>`: the pair opens the file for reading and writing.
      if (redirect(node, src, state)) {
        for (const c of node.children)
          if (c.type !== 'ERROR') walk(c, src, via, depth, state, arith);
        return;
      }
      break;
    case 'variable_assignment':
      assignment(node, src, via, state);
      break;
    case 'for_statement':
    case 'select_statement': {
      // `for PATH in …` assigns PATH each turn, and PATH is exported: the loop variable is an
      // assignment like any other.
      const variable = node.children.find((c) => c.field === 'variable');
      const name = variable ? src.slice(variable.start, variable.end) : '';
      if (variable && !envAllowed(name, false))
        problem(state, `the loop sets ${name}, which may change what later commands run or load`);
      break;
    }
    case 'subscript': {
      // `a[i]`: the index is arithmetic (code, unless a number, @ or *); the name is not evaluated.
      const index = node.children.find((c) => c.field === 'index');
      const text = index ? src.slice(index.start, index.end) : '';
      if (!/^\s*([0-9]+|@|\*)\s*$/.test(text))
        problem(
          state,
          `the subscript of ${snippet(src, node)} is evaluated as arithmetic, which may run commands`,
        );
      break;
    }
    case 'array':
      // `b=([expr]=v)`: in an indexed array the index is arithmetic, evaluated as code.
      for (const item of node.children) {
        const index = /^\[([^\]]*)\]=/.exec(src.slice(item.start, item.end));
        if (index && !/^\s*[0-9]+\s*$/.test(index[1] as string))
          problem(
            state,
            `the index [${index[1]}] of ${snippet(src, node)} is evaluated as arithmetic, which may run commands`,
          );
      }
      break;
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
  // Inside `${#x}` the name is only measured, never evaluated.
  const measured = node.type === 'expansion' && numericParameter(node, src);
  for (const child of node.children) walk(child, src, via, depth, state, arith && !measured);
}

const problem = (state: State, text: string): void => {
  if (!state.out.problems.includes(text)) state.out.problems.push(text);
};

/** `X=… cmd` gives X to cmd (allowlist); a plain `x=…` sets a shell variable (not one a program reads). */
function assignment(node: ShellNode, src: string, via: readonly string[], state: State): void {
  const name = node.children.find((c) => c.field === 'name');
  if (name?.type === 'subscript') {
    const index = name.children.find((c) => c.field === 'index');
    if (index && !/^[0-9]+$/.test(src.slice(index.start, index.end))) {
      problem(
        state,
        `the subscript of ${snippet(src, name)} is evaluated as arithmetic, which may run commands`,
      );
    }
    return;
  }
  const variable = name ? src.slice(name.start, name.end) : '';
  const toCommand = node.field === null && state.prefixes.has(node.start);
  if (!envAllowed(variable, toCommand)) {
    state.out.commands.push({
      argv: [evalWord(node, src)],
      via,
      unknown: `it sets ${variable}, which may change what ${toCommand ? 'the command' : 'later commands'} run or load`,
      cwds: state.cwds,
    });
  }
}

function declaration(
  node: ShellNode,
  src: string,
  via: readonly string[],
  depth: number,
  state: State,
): void {
  const keyword = node.children[0];
  if (keyword === undefined) return;
  const argv = [evalWord(keyword, src), ...joinedWords(node.children.slice(1), src)];
  run(argv, via, depth, state);
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
    if (child.type === 'variable_assignment') state.prefixes.add(child.start);
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
  for (const f of result.files ?? []) {
    state.out.redirects.push({ op: f.op, target: f.target, access: f.access, cwds: state.cwds });
  }
  for (const doubt of result.doubts ?? []) {
    state.out.commands.push({
      argv: [doubt.word],
      via: result.via,
      unknown: doubt.reason,
      cwds: state.cwds,
    });
  }
  if (result.kind === 'script') {
    analyzeInto(result.script.value, result.via, depth + 1, state);
    return;
  }
  const cwds = state.cwds;
  if (result.kind === 'unknown') {
    state.out.commands.push({ argv: result.argv, via: result.via, unknown: result.reason, cwds });
    return;
  }
  const effects = modelCommand(result.argv);
  state.out.commands.push({
    argv: result.argv,
    via: result.via,
    cwds,
    ...(effects !== undefined && { effects }),
  });
  if (effects !== undefined) {
    for (const w of effects.sideWrites)
      state.out.redirects.push({ op: w.op, target: w.target, access: 'write', cwds });
    for (const inner of effects.runs) {
      if (depth + 1 > MAX_DEPTH) {
        problem(
          state,
          `commands nested more than ${MAX_DEPTH} levels deep (${[...result.via, effects.program].join(' → ')})`,
        );
        continue;
      }
      run(
        inner,
        [...result.via, effects.program === 'find' ? 'find -exec' : effects.program],
        depth + 1,
        state,
      );
    }
  }
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
    for (const c of state.cwds) next.add(c === null ? null : unaliasProc(resolve(c, dir), c));
  }
  state.cwds = next.size > MAX_CWDS ? [...state.cwds, null] : [...next];
}

/** Redirection operators that open their file for writing. */
export const WRITE_OPS = new Set(['>', '>>', '>|', '&>', '&>>', '>&', '<>']);

/** Records a redirection; returns true when it took its children too (the `<>` repair). */
function redirect(node: ShellNode, src: string, state: State): boolean {
  const ops = node.children.filter((c) => !c.named);
  let op = ops[0] ? src.slice(ops[0].start, ops[0].end) : '';
  const error = node.children.find((c) => c.type === 'ERROR');
  const repaired =
    op === '<' &&
    error !== undefined &&
    error.start === (ops[0]?.end ?? -1) &&
    src.slice(error.start, error.end) === '>';
  if (repaired) op = '<>';
  const dest = node.children.find((c) => c.field === 'destination');
  if (dest === undefined) return false;
  const target = evalWord(dest, src);
  if ((op === '>&' || op === '<&') && target.literal && /^(\d+|-)$/.test(target.value))
    return false;
  if (op === '<&' || op === '>&-') return false;
  const access = WRITE_OPS.has(op) ? 'write' : 'read';
  state.out.redirects.push({ op, target, access, cwds: state.cwds });
  if (op === '<>') state.out.redirects.push({ op, target, access: 'read', cwds: state.cwds });
  return repaired;
}
