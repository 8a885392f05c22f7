/**
 * How every model reads its words (model.ts `readOptions`): which word is an option, which is an
 * operand, which value an option takes, and what each kind of option does. Every program model
 * is built on it, so a slip here lets a file option through for all of them, or makes them ask
 * for nothing. Each case fails under a one-line change to model.ts that the mutation run
 * (`pnpm mutate:permission`) found surviving.
 */
import { describe, expect, it } from 'vitest';
import { FOUND } from './found';
import {
  effectsOf,
  flags,
  maySplit,
  notUnderstood,
  type OptionTable,
  opts,
  type ProgramEffects,
  readOptions,
  values,
} from './model';

const lit = (value: string) => ({ value, literal: true, glob: false, text: value });
const glob = (value: string) => ({ value, literal: true, glob: true, text: value });
const expansion = (text: string) => ({ value: text, literal: false, glob: false, text });

const TABLE: OptionTable = {
  long: {
    '--flag': 'flag',
    '--opt': 'opt',
    '--value': 'value',
    '--read': 'read',
    '--write': 'write',
    '--tree': 'tree',
    '--run': 'run',
    '--net': 'net',
    '--change': 'change',
    '--fn': (v, fx, option) => fx.reads.push(lit(`${option}:${v.value}`)),
  },
  short: {
    f: 'flag',
    o: 'opt',
    v: 'value',
    r: 'read',
    w: 'write',
    t: 'tree',
    x: 'run',
    n: 'net',
    c: 'change',
  },
};

/** Reads `words` (after the program `p`) by `table`. */
const read = (words: readonly ReturnType<typeof lit>[], table: OptionTable = TABLE) => {
  const fx = effectsOf('p');
  const operands = readOptions([lit('p'), ...words], 1, table, fx);
  return {
    fx,
    operands: operands.map((w) => w.value),
    reads: fx.reads.map((w) => w.value),
    sideWrites: fx.sideWrites.map((s) => `${s.op} ${s.target.value}`),
  };
};
const words = (line: string) => line.split(' ').map(lit);

describe('effectsOf and notUnderstood', () => {
  it('fresh effects are read-only and empty', () => {
    expect(effectsOf('p')).toEqual({
      program: 'p',
      reads: [],
      writes: [],
      sideWrites: [],
      recursive: false,
      network: false,
      runs: [],
      readOnly: true,
    });
  });
  it('keeps the first reason and makes the effects not read-only', () => {
    const fx = effectsOf('p');
    notUnderstood(fx, 'first');
    notUnderstood(fx, 'second');
    expect(fx.unknown).toBe('first');
    expect(fx.readOnly).toBe(false);
  });
});

describe('opts, flags, values', () => {
  it('one entry per name, however the names are spaced', () => {
    expect(opts('  --a   --b\n-c ', 'run')).toEqual({ '--a': 'run', '--b': 'run', '-c': 'run' });
    expect(flags('a b')).toEqual({ a: 'flag', b: 'flag' });
    expect(values('a b')).toEqual({ a: 'value', b: 'value' });
  });
});

describe('maySplit', () => {
  it('an unquoted glob or expansion may split; a quoted one, a found path or a pipe may not', () => {
    expect(maySplit(glob('*.md'))).toBe(true);
    expect(maySplit(expansion('$x'))).toBe(true);
    expect(maySplit(expansion('"$x"y'))).toBe(true);
    expect(maySplit(expansion('"$x" "$y"'))).toBe(true);
    expect(maySplit(expansion('"$x"'))).toBe(false);
    expect(maySplit(expansion('"a\\"$x"'))).toBe(false);
    expect(maySplit(FOUND)).toBe(false);
    expect(maySplit(expansion('<(ls)'))).toBe(false);
    expect(maySplit(lit('a b'))).toBe(false);
  });
});

describe('readOptions: operands', () => {
  it('a word not starting with -, and - alone, are operands', () => {
    const r = read(words('a - b'));
    expect(r.operands).toEqual(['a', '-', 'b']);
    expect(r.fx.unknown).toBeUndefined();
  });
  it('after --, every word is an operand, -- too', () => {
    const r = read(words('-f -- --write -x --'));
    expect(r.operands).toEqual(['--write', '-x', '--']);
    expect(r.fx.unknown).toBeUndefined();
    expect(r.fx.readOnly).toBe(true);
  });
  it('a glob that may begin with - is not understood before --, and is an operand', () => {
    for (const g of ['*', '?x', '[a]x', '{a,b}']) {
      const r = read([glob(g)]);
      expect(r.operands, g).toEqual([g]);
      expect(r.fx.unknown, g).toContain('may expand to a file named like an option');
    }
    for (const g of ['./*', 'a*']) expect(read([glob(g)]).fx.unknown, g).toBeUndefined();
    expect(read([lit('--'), glob('*')]).fx.unknown).toBeUndefined();
  });
  it('a word not known before it runs may be an option: not understood, unless after --', () => {
    const r = read([expansion('$x')]);
    expect(r.operands).toEqual(['$x']);
    expect(r.fx.unknown).toBe('$x is not known before it runs and could be an option');
    expect(read([expansion('-$x')]).fx.unknown).toBe(
      '-$x is not known before it runs and could be an option',
    );
    expect(read([lit('--'), expansion('$x'), expansion('-$x')]).fx.unknown).toBeUndefined();
    expect(read([lit('--'), expansion('-$x')]).operands).toEqual(['-$x']);
  });
  it('a path find found and a process substitution are operands, never options', () => {
    const r = read([FOUND, expansion('<(ls)')]);
    expect(r.operands).toEqual(['{}', '<(ls)']);
    expect(r.fx.unknown).toBeUndefined();
  });
  it('stopAtOperand: options end at the first operand', () => {
    const table = { ...TABLE, stopAtOperand: true };
    expect(read(words('-f a -w b'), table).operands).toEqual(['a', '-w', 'b']);
    expect(read(words('-f a -w b'), table).sideWrites).toEqual([]);
    expect(read(words('-f a -w b')).sideWrites).toEqual(['p -w b']);
  });
});

describe('readOptions: long options', () => {
  it('an unknown one, or one inherited from Object, is not understood', () => {
    expect(read(words('--nope a')).fx.unknown).toBe('p option --nope is not one the model knows');
    expect(read(words('--nope=x a')).fx.unknown).toBe('p option --nope is not one the model knows');
    expect(read(words('--constructor a')).fx.unknown).toContain('--constructor');
    expect(read(words('--nope a')).operands).toEqual(['a']);
  });
  it('a value: separated or after =', () => {
    expect(read(words('--read x a'))).toMatchObject({ reads: ['x'], operands: ['a'] });
    expect(read(words('--read=x a'))).toMatchObject({ reads: ['x'], operands: ['a'] });
    expect(read(words('--read= a'))).toMatchObject({ reads: [''], operands: ['a'] });
    expect(read(words('--value x a'))).toMatchObject({ reads: [], operands: ['a'] });
    expect(read(words('--fn x'))).toMatchObject({ reads: ['--fn:x'], operands: [] });
    expect(read(words('--fn=x'))).toMatchObject({ reads: ['--fn:x'], operands: [] });
    expect(read(words('--value=x')).fx.unknown).toBeUndefined();
  });
  it('the value read after = is a literal word', () => {
    const fx = read(words('--read=x')).fx;
    expect(fx.reads[0]).toEqual(lit('x'));
  });
  it('a write: a side write named by program and option, and not read-only', () => {
    for (const line of ['--write out a', '--write=out a']) {
      const r = read(words(line));
      expect(r.sideWrites, line).toEqual(['p --write out']);
      expect(r.fx.readOnly, line).toBe(false);
      expect(r.operands, line).toEqual(['a']);
    }
  });
  it('a value missing at the end is not understood', () => {
    expect(read(words('--read')).fx.unknown).toBe('p option --read has no value');
    expect(read(words('--value')).fx.unknown).toBe('p option --value has no value');
  });
  it('a value that may split is not understood, and still taken', () => {
    const r = read([lit('--read'), expansion('$x'), lit('a')]);
    expect(r.fx.unknown).toBe('the value $x of --read may split into several words');
    expect(r).toMatchObject({ reads: ['$x'], operands: ['a'] });
    expect(read([lit('--read'), expansion('"$x"')]).fx.unknown).toBeUndefined();
  });
  it('a flag given a value is not understood; an opt takes one after = only', () => {
    for (const option of ['--flag', '--tree', '--change'])
      expect(read(words(`${option}=x a`)).fx.unknown, option).toBe(
        `p option ${option} takes no value`,
      );
    expect(read(words('--tree=x')).fx.recursive).toBe(false);
    expect(read(words('--opt=x a'))).toMatchObject({ operands: ['a'], reads: [] });
    expect(read(words('--opt=x a')).fx.unknown).toBeUndefined();
    expect(read(words('--opt a')).operands).toEqual(['a']);
    expect(read(words('--flag a')).operands).toEqual(['a']);
  });
  it('what each flag does', () => {
    expect(read(words('--flag')).fx).toEqual(effectsOf('p'));
    expect(read(words('--tree')).fx.recursive).toBe(true);
    expect(read(words('--tree')).fx.readOnly).toBe(true);
    expect(read(words('--run')).fx.unknown).toBe('option --run of p runs another program');
    expect(read(words('--run=x')).fx.unknown).toBe('option --run of p runs another program');
    const net = read(words('--net')).fx;
    expect(net.network).toBe(true);
    expect(net.readOnly).toBe(false);
    expect(net.unknown).toBeUndefined();
    const change = read(words('--change')).fx;
    expect(change.readOnly).toBe(false);
    expect(change.unknown).toBeUndefined();
    expect(change.network).toBe(false);
  });
  it('singleDashLong: a long option written with one dash, by its name before =', () => {
    const table = {
      ...TABLE,
      long: { ...TABLE.long, '-name': 'read' as const },
      singleDashLong: true,
    };
    expect(read(words('-name x a'), table)).toMatchObject({ reads: ['x'], operands: ['a'] });
    expect(read(words('-name=x a'), table)).toMatchObject({ reads: ['x'], operands: ['a'] });
    // Without it, the same word is read as short options: -n, then -a is not one it knows.
    const short = read(words('-name x a'), { ...table, singleDashLong: false });
    expect(short.reads).toEqual([]);
    expect(short.fx.unknown).toBe('p option -a is not one the model knows');
  });
});

describe('readOptions: short options', () => {
  it('combined flags, then a value attached or separated', () => {
    expect(read(words('-ftr x a'))).toMatchObject({ reads: ['x'], operands: ['a'] });
    expect(read(words('-ftr x a')).fx.recursive).toBe(true);
    expect(read(words('-ftrx a'))).toMatchObject({ reads: ['x'], operands: ['a'] });
    expect(read(words('-rx a'))).toMatchObject({ reads: ['x'], operands: ['a'] });
    expect(read(words('-v x a'))).toMatchObject({ reads: [], operands: ['a'] });
    expect(read(words('-vx a'))).toMatchObject({ reads: [], operands: ['a'] });
    expect(read(words('-wout a')).sideWrites).toEqual(['p -w out']);
    expect(read(words('-w out a')).sideWrites).toEqual(['p -w out']);
  });
  it('the attached value is a literal word', () => {
    expect(read(words('-rx')).fx.reads[0]).toEqual(lit('x'));
  });
  it('an unknown letter stops the word, and is not understood', () => {
    const r = read(words('-fzr x a'));
    expect(r.fx.unknown).toBe('p option -z is not one the model knows');
    // The rest of the word is not read: `x` is an operand.
    expect(r).toMatchObject({ reads: [], operands: ['x', 'a'] });
    expect(read(words('-p')).fx.unknown).toBe('p option -p is not one the model knows');
  });
  it('a letter inherited from Object is not an option', () => {
    expect(read(words('-f')).fx.unknown).toBeUndefined();
    expect(read([lit('-_')]).fx.unknown).toBe('p option -_ is not one the model knows');
  });
  it('a value missing at the end, or one that may split, is not understood', () => {
    expect(read(words('-fr')).fx.unknown).toBe('p option -r has no value');
    const r = read([lit('-r'), expansion('$x'), lit('a')]);
    expect(r.fx.unknown).toBe('the value $x of -r may split into several words');
    expect(r).toMatchObject({ reads: ['$x'], operands: ['a'] });
    expect(read([lit('-r'), expansion('"$x"')]).fx.unknown).toBeUndefined();
  });
  it('an opt takes the rest of the word, and nothing after it', () => {
    const r = read(words('-orx a'));
    expect(r).toMatchObject({ reads: [], operands: ['a'] });
    expect(r.fx.unknown).toBeUndefined();
    expect(read(words('-o a')).operands).toEqual(['a']);
  });
  it('what each short flag does', () => {
    expect(read(words('-x')).fx.unknown).toBe('option -x of p runs another program');
    expect(read(words('-n')).fx).toMatchObject({ network: true, readOnly: false });
    expect(read(words('-c')).fx).toMatchObject({ network: false, readOnly: false });
    expect(read(words('-c')).fx.unknown).toBeUndefined();
    expect(read(words('-t')).fx).toMatchObject({ recursive: true, readOnly: true });
    expect(read(words('-fffff a')).fx).toMatchObject({ ...effectsOf('p') });
  });
  it('reads from the index given', () => {
    const fx = effectsOf('p');
    const operands = readOptions(words('p sub -r x a'), 2, TABLE, fx);
    expect(operands.map((w) => w.value)).toEqual(['a']);
    expect(fx.reads.map((w) => w.value)).toEqual(['x']);
  });
  it('a table without short or long options knows none', () => {
    const fx: ProgramEffects = effectsOf('p');
    readOptions(words('p -f --flag'), 1, {}, fx);
    expect(fx.unknown).toBe('p option -f is not one the model knows');
  });
});
