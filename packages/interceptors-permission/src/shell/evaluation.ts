import { judgeTestWords } from './models/builtins';
import { effectsOf } from './models/model';
import { parseShell, type ShellNode } from './parser';
import { evalWord, type ShellWord, syntheticWord } from './words';

/** Source text of a node, cut to 40 characters for messages. */
export const snippet = (src: string, node: ShellNode): string => {
  const text = src.slice(node.start, node.end);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
};

/**
 * Removes backslash-newline outside single quotes, as bash does before it splits words: `r\⏎m`
 * is `rm` (the parser would read two words).
 */
export function joinContinuations(line: string): string {
  if (!line.includes('\\\n')) return line;
  let out = '';
  let quote: "'" | '"' | '$' | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      out += c;
      continue;
    }
    if (quote === '$') {
      // `$'…'` takes backslash escapes (`\'` does not end it) and joins no lines.
      if (c === '\\') {
        out += c + (line[i + 1] ?? '');
        i++;
      } else {
        if (c === "'") quote = undefined;
        out += c;
      }
      continue;
    }
    if (c === '\\') {
      const next = line[i + 1];
      if (next === '\n') {
        i++;
        continue;
      }
      out += c + (next ?? '');
      i++;
      continue;
    }
    // A comment runs to the end of its line, backslash and all: it joins nothing.
    if (
      c === '#' &&
      quote === undefined &&
      (i === 0 || /[\s;&|()<>]/.test(line[i - 1] as string))
    ) {
      const end = line.indexOf('\n', i);
      const stop = end < 0 ? line.length : end;
      out += line.slice(i, stop);
      i = stop - 1;
      continue;
    }
    if (c === "'" && quote === undefined) quote = line[i - 1] === '$' ? '$' : "'";
    else if (c === '"') quote = quote === '"' ? undefined : '"';
    out += c;
  }
  return out;
}

/**
 * What an expansion evaluates: `${!x}` (the variable a value names), `${x@P}` (a prompt, which runs
 * substitutions), `${x:y}` (arithmetic offsets), and backticks inside `${x:-…}` (commands the
 * parser leaves as text). Returns the problems and the command lines to judge.
 */
export function expansionEffects(
  node: ShellNode,
  src: string,
): { readonly problems: string[]; readonly scripts: string[] } {
  const problems: string[] = [];
  const scripts: string[] = [];
  const text = snippet(src, node);
  if (node.children[1]?.type === '!') {
    problems.push(`${text} expands the variable a value names, which may evaluate a subscript`);
  }
  const operators = node.children
    .filter((c) => c.field === 'operator')
    .map((c) => src.slice(c.start, c.end));
  const at = operators.indexOf('@');
  if (at >= 0 && operators[at + 1] === 'P') {
    problems.push(`${text} expands a value as a prompt, which runs the commands it holds`);
  }
  const colon = node.children.findIndex(
    (c) => c.field === 'operator' && src.slice(c.start, c.end) === ':',
  );
  if (colon >= 0) {
    for (const c of node.children.slice(colon + 1)) {
      if (c.named && !/^\s*-?[0-9]+\s*$/.test(src.slice(c.start, c.end)) && c.type !== '}') {
        problems.push(
          `${text} evaluates its offset or length as arithmetic, which may run commands`,
        );
        break;
      }
    }
  }
  for (const c of node.children) {
    if (c.type === 'word') {
      for (const m of src.slice(c.start, c.end).matchAll(/`([^`]*)`/g))
        scripts.push(m[1] as string);
    } else if (c.named && c.children.length === 0 && c.type !== 'variable_name') {
      // A pattern or replacement (`${x#…}`, `${x/…/…}`, `${x^^…}`) the parser leaves as text.
      unparsedEffects(src.slice(c.start, c.end), text, problems, scripts);
    }
  }
  return { problems, scripts };
}

/**
 * Bash expands the text of a pattern inside `${…}` as a word: `${x#$(rm …)}` runs `rm`, and so
 * does `${x#<(rm …)}`, even inside double quotes. The text
 * is parsed as a word of its own (`: TEXT`); what it runs becomes scripts to judge, and what it
 * evaluates (arithmetic, another expansion's effects) or what does not parse, problems.
 */
function unparsedEffects(
  pattern: string,
  text: string,
  problems: string[],
  scripts: string[],
): void {
  if (!/[$`]|[<>]\(/.test(pattern)) return;
  const parsed = parseShell(`: ${pattern}`);
  if ('error' in parsed) {
    problems.push(`${text} holds a pattern that could not be read (${parsed.error})`);
    return;
  }
  const src = parsed.source;
  const visit = (n: ShellNode): void => {
    if (n.type === 'ERROR' || n.missing) {
      problems.push(`${text} holds a pattern that is not understood, which may run commands`);
    } else if (n.type === 'command_substitution' || n.type === 'process_substitution') {
      const open = n.children[0];
      const close = n.children[n.children.length - 1];
      if (open !== undefined && close !== undefined && close.start >= open.end) {
        const body = src.slice(open.end, close.start);
        // Inside backticks bash removes one level of \\, \` and \$ before parsing the body.
        scripts.push(open.type === '`' ? body.replace(/\\([\\`$])/g, '$1') : body);
      }
      return;
    } else if (n.type === 'arithmetic_expansion') {
      problems.push(`${text} evaluates arithmetic in its pattern, which may run commands`);
      return;
    } else if (n.type === 'expansion') {
      const inner = expansionEffects(n, src);
      problems.push(...inner.problems);
      scripts.push(...inner.scripts);
    }
    for (const c of n.children) visit(c);
  };
  visit(parsed.root);
}

/** `[[ … ]]`: `-v a[…]` and arithmetic comparisons of names evaluate code; the problem, if any. */
export function testProblem(node: ShellNode, src: string): string | undefined {
  const words: ShellWord[] = [];
  const leaves = (n: ShellNode): void => {
    if (
      n.type === 'test_operator' ||
      n.children.length === 0 ||
      n.type === 'simple_expansion' ||
      n.type === 'expansion' ||
      n.type === 'command_substitution' ||
      n.type === 'arithmetic_expansion' ||
      n.type === 'string' ||
      n.type === 'raw_string' ||
      n.type === 'concatenation'
    ) {
      if (n.type === 'test_operator') words.push(syntheticWord(src.slice(n.start, n.end), true));
      else if (n.type !== '[[' && n.type !== ']]') words.push(evalWord(n, src));
      return;
    }
    for (const c of n.children) leaves(c);
  };
  leaves(node);
  const fx = effectsOf('[[');
  judgeTestWords(words, fx, node.children[0]?.type === '[[');
  return fx.unknown;
}

/** Words of a node whose pieces the parser splits though no blank separates them (`N''ODE_OPTIONS=x`). */
export function joinedWords(nodes: readonly ShellNode[], src: string): ShellWord[] {
  const out: ShellWord[] = [];
  let last = -1;
  for (const n of nodes) {
    let word: ShellWord;
    if (n.type === 'variable_assignment') {
      const value = n.children.find((c) => c.field === 'value');
      const name = n.children.find((c) => c.field === 'name');
      const v = value ? evalWord(value, src) : undefined;
      const text = src.slice(n.start, n.end);
      const nameText = name ? src.slice(name.start, name.end) : '';
      word = {
        value: `${nameText}=${v?.value ?? ''}`,
        literal: (v?.literal ?? true) && name?.type !== 'subscript',
        glob: false,
        text,
      };
    } else if (n.type === 'variable_name') word = syntheticWord(src.slice(n.start, n.end), true);
    else word = evalWord(n, src);
    const prev = out[out.length - 1];
    if (prev && n.start === last) {
      out[out.length - 1] = {
        value: prev.value + word.value,
        literal: prev.literal && word.literal,
        glob: prev.glob || word.glob,
        text: prev.text + word.text,
      };
    } else out.push(word);
    last = n.end;
  }
  return out;
}
