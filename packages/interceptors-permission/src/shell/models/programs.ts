import { tar } from './archive';
import { declare, echo, ls, mapfile, printf, read, test, unset } from './builtins';
import { COMPRESSORS, csplit, patch, split, uniq, unzip } from './file-writers';
import { node, perl, python, ruby } from './interpreters';
import type { Model } from './model';
import { curl, wget } from './network';
import { awk, find, grep, jq, reader, rg, SORT_TABLE, sed } from './readers';
import { copier, dd, interpreter, packageManager, tee } from './runners';

/** Programs with a model, by base name. */
export const MODELS: Readonly<Record<string, Model>> = {
  grep,
  egrep: grep,
  fgrep: grep,
  rg,
  sed,
  awk,
  gawk: awk,
  mawk: awk,
  nawk: awk,
  sort: reader('sort', SORT_TABLE),
  jq,
  find,
  declare,
  typeset: declare,
  export: declare,
  local: declare,
  readonly: declare,
  unset,
  read,
  mapfile,
  readarray: mapfile,
  test,
  '[': test,
  echo,
  ls,
  printf,
  node,
  deno: interpreter(/^(eval|repl)$/),
  bun: interpreter(/^(-e|--eval(=.*)?|-p|--print(=.*)?)$/s),
  python,
  python3: python,
  perl,
  ruby,
  npm: packageManager,
  pnpm: packageManager,
  yarn: packageManager,
  npx: packageManager,
  tee,
  dd,
  cp: copier('cp'),
  mv: copier('mv'),
  ln: copier('ln'),
  install: copier('install'),
  tar,
  curl,
  wget,
  uniq,
  split,
  csplit,
  patch,
  unzip,
  ...COMPRESSORS,
};
