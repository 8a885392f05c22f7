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
      i = delimited(s, i + 1, delim);
      if (i < 0) return false;
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
      i = delimited(s, i + 1, delim);
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
      while (i < s.length && s[i] !== ';' && s[i] !== '\n') i++;
    } else if (cmd === 'e') {
      fail('e runs a command');
      return;
    } else {
      fail(`command ${JSON.stringify(cmd)} is not one the model knows`);
      return;
    }
  }
}

/**
 * Judges an awk program: `system`, pipes, output redirection, `getline` from a file and
 * extensions reach beyond the input, so a program with any of them is not understood. String
 * literals are left out first (`"a|b"` is text); regular expressions stay (over-approximates).
 */
export function judgeAwkProgram(program: ShellWord, fx: ProgramEffects): void {
  if (!program.literal) {
    notUnderstood(fx, `the awk program ${program.text} is not known before it runs`);
    return;
  }
  const code = program.value.replace(/"(\\.|[^"\\])*"/g, '""');
  // gawk calls a function by a name held in a variable (`f = "sys" "tem"; @f("cmd")`), built-in
  // ones too: an indirect call may be system().
  const reach =
    /\bsystem\s*\(|\||print[f]?\b[^;}\n]*>|\bgetline\b|@(include|load)|@[A-Za-z_][A-Za-z0-9_:]*\s*\(|\bENVIRON\b|\bclose\s*\(|\bfflush\s*\(/;
  const hit = reach.exec(code.replace(/\|\|/g, ' OR '));
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
  if (/\b(import|include)\b/.test(filter.value.replace(/"(\\.|[^"\\])*"/g, '""')))
    notUnderstood(fx, 'the jq filter imports a module, which reads files from the search path');
}
