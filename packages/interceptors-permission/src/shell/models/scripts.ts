import { type ShellWord, syntheticWord } from '../words';
import { notUnderstood, type ProgramEffects } from './model';

const SIMPLE_SED = 'pdqQ=lnNPDhHgGxzF';

/** Reads a delimited part (`/re/` after its opening delimiter); returns the index after its close. */
const delimited = (s: string, i: number, delim: string): number => {
  for (; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === delim) return i + 1;
    else if (s[i] === '\n' && delim !== '\n') return -1;
  }
  return -1;
};

/**
 * Whether a regular expression's text, as a plain reading of its delimited part found it, closes
 * every bracket expression it opens. GNU sed and awk read `[…]` as one piece, the delimiter and a
 * backslash inside it as themselves (`s/[/]/x/e`: `[/]` is the expression), so a part whose bracket
 * is still open at its end is not where the program ends it.
 */
const bracketsClosed = (re: string): boolean => {
  for (let i = 0; i < re.length; i++) {
    if (re[i] === '\\') i++;
    else if (re[i] === '[') {
      i++;
      if (re[i] === '^') i++;
      if (re[i] === ']') i++;
      for (; re[i] !== ']'; i++) {
        if (i >= re.length) return false;
        // `[:alpha:]`, `[=a=]`, `[.-.]` inside a bracket: their `]` does not close it.
        if (re[i] === '[' && ':=.'.includes(re[i + 1] ?? '_')) {
          const close = re.indexOf(`${re[i + 1]}]`, i + 2);
          if (close < 0) return false;
          i = close + 1;
        }
      }
    }
  }
  return true;
};

const restOfLine = (s: string, i: number): [string, number] => {
  const end = s.indexOf('\n', i);
  const stop = end < 0 ? s.length : end;
  return [s.slice(i, stop).trim(), stop];
};

/**
 * Judges a sed script: `r` / `R` read a file, `w` / `W` and `s///w` write one, `e` and `s///e` run
 * a command (not understood), and anything the reader does not follow is not understood.
 */
export function judgeSedScript(script: string, fx: ProgramEffects, sandbox: boolean): void {
  const s = script;
  let i = 0;
  const fail = (why: string) =>
    notUnderstood(fx, `sed script ${JSON.stringify(s.slice(0, 40))}: ${why}`);
  const file = (op: string, name: string, access: 'read' | 'write') => {
    if (sandbox) {
      fail(`${op} is refused under --sandbox`);
      return;
    }
    if (name === '') {
      fail(`${op} names no file`);
      return;
    }
    const word = syntheticWord(name, true);
    if (access === 'read') fx.reads.push(word);
    else {
      fx.sideWrites.push({ op: `sed ${op}`, target: word });
      fx.readOnly = false;
    }
  };
  const address = (): boolean => {
    if (/[0-9]/.test(s[i] ?? '')) {
      while (/[0-9~]/.test(s[i] ?? '')) i++;
    } else if (s[i] === '$') i++;
    else if (s[i] === '/' || s[i] === '\\') {
      const delim = s[i] === '\\' ? (s[++i] as string) : '/';
      const start = i + 1;
      i = delimited(s, start, delim);
      if (i < 0 || !bracketsClosed(s.slice(start, i - 1))) return false;
      while (s[i] === 'I' || s[i] === 'M') i++;
    }
    return true;
  };
  while (i < s.length) {
    const c = s[i] as string;
    if (c === ' ' || c === '\t' || c === '\n' || c === ';' || c === '{' || c === '}') {
      i++;
      continue;
    }
    if (c === '#') {
      i = restOfLine(s, i)[1];
      continue;
    }
    if (!address()) {
      fail('an address is not closed');
      return;
    }
    if (s[i] === ',') {
      i++;
      if (s[i] === '+' || s[i] === '~') i++;
      if (!address()) {
        fail('an address is not closed');
        return;
      }
    }
    while (s[i] === ' ' || s[i] === '!') i++;
    const cmd = s[i++];
    if (cmd === undefined) return;
    if (SIMPLE_SED.includes(cmd)) {
      while (/[0-9]/.test(s[i] ?? '')) i++;
    } else if (cmd === '{' || cmd === '}') {
    } else if (cmd === 's' || cmd === 'y') {
      const delim = s[i];
      if (delim === undefined || delim === '\n' || delim === '\\') {
        fail(`${cmd} has no delimiter`);
        return;
      }
      const start = i + 1;
      i = delimited(s, start, delim);
      // s's pattern is a regular expression (its brackets read as one piece); y's are not.
      if (cmd === 's' && i >= 0 && !bracketsClosed(s.slice(start, i - 1))) {
        fail('a bracket expression holds the delimiter');
        return;
      }
      if (i >= 0) i = delimited(s, i, delim);
      if (i < 0) {
        fail(`${cmd} is not closed`);
        return;
      }
      if (cmd === 's') {
        while (i < s.length && /[gpiImMe0-9w]/.test(s[i] as string)) {
          const flag = s[i++];
          if (flag === 'e') {
            fail('s///e runs the pattern space as a command');
            return;
          }
          if (flag === 'w') {
            const [name, end] = restOfLine(s, i);
            file('s///w', name, 'write');
            i = end;
          }
        }
      }
    } else if (cmd === 'r' || cmd === 'R' || cmd === 'w' || cmd === 'W') {
      const [name, end] = restOfLine(s, i);
      file(cmd, name, cmd === 'r' || cmd === 'R' ? 'read' : 'write');
      i = end;
    } else if (cmd === 'a' || cmd === 'i' || cmd === 'c') {
      i = restOfLine(s, i)[1];
    } else if (cmd === 'b' || cmd === 't' || cmd === 'T' || cmd === ':') {
      // GNU sed ends a label at a blank, `;` or `}`, and reads a command after it: `:x w FILE`
      // writes FILE, `:x r FILE` reads it.
      while (s[i] === ' ' || s[i] === '\t') i++;
      while (i < s.length && !/[\s;}]/.test(s[i] as string)) i++;
    } else if (cmd === 'e') {
      fail('e runs a command');
      return;
    } else {
      fail(`command ${JSON.stringify(cmd)} is not one the model knows`);
      return;
    }
  }
}

/** A string literal (`"…"`, backslash escapes; jq's may hold a newline). */
const STRING = /"(?:\\.|[^"\\])*"/y;
/** A comment, to the end of its line (a backslash before the newline does not go on with it). */
const COMMENT = /#[^\n]*/y;
/** After these words a `/` begins a regular expression (`print /x/`), after other words it divides. */
const AWK_BEFORE_REGEX = new Set(['print', 'printf', 'return', 'exit', 'case', 'else', 'do']);

/**
 * Reads an awk program as awk's lexer does: comments are left out, string literals blanked
 * (`"a|b"` is text), and a `/` where an operand is expected begins a regular expression, whose
 * `"` and `#` are its own (`/"/`). Returns the code with the regular expressions kept and with
 * them blanked (`print /;/ > "f"`), or why the program was not read.
 */
function readAwk(program: string): { code: string; bare: string } | string {
  let code = '';
  let bare = '';
  // Whether the last token ends an operand (`x`, `)`, `"s"`): a `/` after it divides.
  let operand = false;
  let word = '';
  // For each open `(`, whether it holds the condition of if / while / for.
  const parens: boolean[] = [];
  let i = 0;
  const take = (re: RegExp): string | undefined => {
    re.lastIndex = i;
    const m = re.exec(program)?.[0];
    if (m !== undefined) i += m.length;
    return m;
  };
  while (i < program.length) {
    const c = program[i] as string;
    if (c === '\\' && program[i + 1] === '\n') {
      i += 2;
      continue;
    }
    if (take(COMMENT) !== undefined) continue;
    if (c === '"') {
      if (take(STRING) === undefined) return 'a string is not closed';
      code += '""';
      bare += '""';
      operand = true;
      word = '';
      continue;
    }
    const name = take(/[A-Za-z0-9_.]+/y);
    if (name !== undefined) {
      code += name;
      bare += name;
      word = name;
      operand = !AWK_BEFORE_REGEX.has(name);
      continue;
    }
    // `a++ / 2` still divides.
    const step = take(/\+\+|--/y);
    if (step !== undefined) {
      code += step;
      bare += step;
      word = '';
      continue;
    }
    i++;
    if (c === '/') {
      const end = delimited(program, i, '/');
      const re = program.slice(i, end - 1);
      if (operand) {
        // Read as a division: were it a regular expression, a `"` or `#` in it would be its own.
        if (end >= 0 && /["#]/.test(re)) return 'a / may begin a regular expression holding " or #';
      } else {
        if (end < 0 || !bracketsClosed(re))
          return 'a regular expression is not closed where awk closes it';
        code += `/${re}/`;
        bare += '//';
        operand = true;
        word = '';
        i = end;
        continue;
      }
    }
    code += c;
    bare += c;
    if (c === '(') parens.push(/^(if|while|for)$/.test(word));
    // `if (x) /re/`: a statement begins after the condition.
    if (c === ')') operand = !parens.pop();
    else if (c === ']') operand = true;
    // A newline ends a statement.
    else if (c === '\n' || !/\s/.test(c)) operand = false;
    if (!/\s/.test(c)) word = '';
  }
  return { code, bare };
}

/**
 * Judges an awk program: `system`, pipes, output redirection, `getline` from a file, `ARGV` (the
 * files it reads may be changed) and extensions reach beyond the input, so a program with any of
 * them is not understood. String literals and comments are left out first (`"a|b"` is text);
 * regular expressions stay (over-approximates).
 */
export function judgeAwkProgram(program: ShellWord, fx: ProgramEffects): void {
  if (!program.literal) {
    notUnderstood(fx, `the awk program ${program.text} is not known before it runs`);
    return;
  }
  const read = readAwk(program.value);
  if (typeof read === 'string') {
    notUnderstood(fx, `the awk program is not understood: ${read}`);
    return;
  }
  // gawk calls a function by a name held in a variable (`f = "sys" "tem"; @f("cmd")`), built-in
  // ones too: an indirect call may be system(). gawk's SYMTAB reaches any variable by a name
  // built at run time (`SYMTAB["AR" "GV"][1] = ".env"`). A print's words may go on after a comma
  // on the next line (`print "x",⏎"y" > "f"`).
  const reach =
    /\bsystem\s*\(|\||print[f]?\b[^;}]*>|\bgetline\b|@(include|load)|@[A-Za-z_][A-Za-z0-9_:]*\s*\(|\bENVIRON\b|\bARGV\b|\bSYMTAB\b|\bclose\s*\(|\bfflush\s*\(/;
  const hit =
    reach.exec(read.code.replace(/\|\|/g, ' OR ')) ??
    reach.exec(read.bare.replace(/\|\|/g, ' OR '));
  if (hit)
    notUnderstood(
      fx,
      `the awk program uses ${JSON.stringify(hit[0].trim())}, which reaches beyond its input`,
    );
}

/** Judges a jq filter: modules (`import`, `include`) read files from the search path. */
export function judgeJqFilter(filter: ShellWord, fx: ProgramEffects): void {
  if (!filter.literal) {
    notUnderstood(fx, `the jq filter ${filter.text} is not known before it runs`);
    return;
  }
  // Comments are left out (a `"` in one begins no string) and strings blanked, but a string
  // with an interpolation (`"\\(…)"`) is kept: it holds code.
  const code = filter.value.replace(/"(?:\\.|[^"\\])*"|#[^\n]*/g, (m) =>
    m.startsWith('#') ? '' : m.includes('\\(') ? m : '""',
  );
  // `"m" | modulemeta` reads the module m.jq from the search path as `import` does.
  if (/\b(import|include|modulemeta)\b/.test(code))
    notUnderstood(fx, 'the jq filter imports a module, which reads files from the search path');
}
