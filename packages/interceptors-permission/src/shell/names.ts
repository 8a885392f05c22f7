/** The program name without its directory: `/bin/rm` and `./rm` are `rm`. */
export const baseName = (name: string): string => {
  const slash = name.lastIndexOf('/');
  return slash < 0 ? name : name.slice(slash + 1);
};

/**
 * Environment variables that change what a command runs or loads (`PATH=/tmp/x git status` runs
 * another git). A command that sets one is never auto-allowed.
 */
export const DANGEROUS_ENV = new Set([
  'PATH',
  'LD_PRELOAD',
  'LD_LIBRARY_PATH',
  'LD_AUDIT',
  'DYLD_INSERT_LIBRARIES',
  'DYLD_LIBRARY_PATH',
  'BASH_ENV',
  'ENV',
  'IFS',
  'SHELLOPTS',
  'BASHOPTS',
  'PS4',
  'PROMPT_COMMAND',
  'NODE_OPTIONS',
  'NODE_PATH',
  'PYTHONPATH',
  'PYTHONSTARTUP',
  'PYTHONHOME',
  'PERL5OPT',
  'PERL5LIB',
  'RUBYOPT',
  'RUBYLIB',
  'GIT_SSH_COMMAND',
  'GIT_EXEC_PATH',
  'GIT_CONFIG_GLOBAL',
  'GIT_EDITOR',
  'GIT_PAGER',
  'PAGER',
  'EDITOR',
  'VISUAL',
  'GCONV_PATH',
  'HOME',
]);

/**
 * Variables a command may be given without asking: they change how output looks or which locale
 * and time zone it uses, never what runs, what is loaded or where files go.
 */
const SAFE_ENV = new Set([
  'CI',
  'NODE_ENV',
  'DEBUG',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TERM',
  'NO_COLOR',
  'FORCE_COLOR',
  'CLICOLOR',
  'CLICOLOR_FORCE',
  'COLUMNS',
  'LINES',
  'RUST_BACKTRACE',
  'RUST_LOG',
  'LOG_LEVEL',
  'VERBOSE',
  'TIMING',
  'SKIP_ENV_VALIDATION',
]);

/** Prefixes of variables that make a program run code, load a library or write somewhere. */
const DANGEROUS_PREFIX =
  /^(GIT_|npm_config_|NPM_CONFIG_|LD_|DYLD_|PYTHON|PERL|RUBY|NODE_|BASH_FUNC_|JAVA_|_JAVA|MAVEN_|GRADLE_|CARGO_|RUSTC|GO|DOCKER_|SSH_|GPG|PAGER|LESS|MANPAGER|SYSTEMD_PAGER|EDITOR|VISUAL)/;

/**
 * Whether an assignment to `name` may pass without asking. Given to a command (`X=… cmd`, `env
 * X=…`, `export X=…`) only the allowlist passes; a plain shell variable (`x=1`) passes when its
 * name is lower case and not one a program reads (a variable already exported keeps being
 * exported, so an upper-case name may change a later command's environment).
 */
export function envAllowed(name: string, toCommand: boolean): boolean {
  if (SAFE_ENV.has(name) || /^LC_[A-Z]+$/.test(name)) return true;
  if (DANGEROUS_ENV.has(name) || DANGEROUS_PREFIX.test(name)) return false;
  if (toCommand) return false;
  return /^[a-z_][a-z0-9_]*$/.test(name) && !/_proxy$/.test(name);
}

/** Shells whose `-c` string is a command line of its own. */
export const SHELLS = new Set([
  'sh',
  'bash',
  'zsh',
  'dash',
  'ksh',
  'mksh',
  'ash',
  'fish',
  'yash',
  'posh',
  'rbash',
]);

/** Options (per wrapper) that take the next word as their value. */
export const VALUE_OPTS: Record<string, ReadonlySet<string>> = {
  timeout: new Set(['-s', '--signal', '-k', '--kill-after']),
  nice: new Set(['-n', '--adjustment']),
  stdbuf: new Set(['-i', '-o', '-e', '--input', '--output', '--error']),
  ionice: new Set(['-c', '-n', '-p', '-P', '-u', '--class', '--classdata']),
  time: new Set(['-f', '-o', '--format', '--output']),
  exec: new Set(['-a']),
  sudo: new Set([
    '-u',
    '-g',
    '-h',
    '-p',
    '-C',
    '-D',
    '-r',
    '-t',
    '-U',
    '-T',
    '--user',
    '--group',
    '--host',
    '--prompt',
    '--chdir',
    '--role',
    '--type',
    '--other-user',
    '--close-from',
    '--command-timeout',
  ]),
  doas: new Set(['-u', '-C']),
  xargs: new Set([
    '-a',
    '-d',
    '-E',
    '-I',
    '-L',
    '-n',
    '-P',
    '-s',
    '--arg-file',
    '--delimiter',
    '--eof',
    '--replace',
    '--max-lines',
    '--max-args',
    '--max-procs',
    '--max-chars',
    '--process-slot-var',
  ]),
  chroot: new Set(['--userspec', '--groups']),
  flock: new Set(['-w', '--timeout', '-E', '--conflict-exit-code']),
  // `-d` / `--differences` take their optional value only as `--differences=permanent`: listed
  // here, `watch -d rm -rf /` would hide `rm` as that value.
  watch: new Set(['-n', '--interval', '-q', '--equexit']),
  setsid: new Set<string>(),
  nohup: new Set<string>(),
  command: new Set<string>(),
  builtin: new Set<string>(),
  coproc: new Set<string>(),
  unbuffer: new Set<string>(),
  chrt: new Set<string>(),
  taskset: new Set<string>(),
};
