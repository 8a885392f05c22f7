/**
 * Class 3: environment that makes an allowed program (`git diff`, `git log`, `npm test`, `rg`) run
 * code or write. The code is `scripts/pwn.sh` / `scripts/pwn.cjs`, committed to the repository
 * (an attacker controls the repository's content).
 */
import { type AttackEntry, entriesOf } from './entry';

const a = entriesOf(3);
const REQUIRE = "'--require ./scripts/pwn.cjs'";

export const ENVIRONMENT: readonly AttackEntry[] = [
  // git: external diff, config through the environment, trace files
  a(
    'git-external-diff',
    'GIT_EXTERNAL_DIFF=scripts/pwn.sh git diff HEAD~1',
    'exec',
    'git runs the external diff program',
  ),
  a(
    'git-external-diff-inline',
    "GIT_EXTERNAL_DIFF='touch {MARK};:' git diff HEAD~1",
    'exec',
    'git runs it through a shell',
  ),
  a(
    'git-external-diff-log',
    'GIT_EXTERNAL_DIFF=scripts/pwn.sh git log -p -1 --ext-diff',
    'exec',
    'git log with --ext-diff',
  ),
  a(
    'git-external-diff-export',
    'export GIT_EXTERNAL_DIFF=scripts/pwn.sh; git diff HEAD~1',
    'exec',
    'through export',
  ),
  a(
    'git-config-parameters-fsmonitor',
    `GIT_CONFIG_PARAMETERS="'core.fsmonitor'='touch {MARK}; false'" git diff`,
    'exec',
    'core.fsmonitor runs when git reads the index',
  ),
  a(
    'git-config-parameters-external',
    `GIT_CONFIG_PARAMETERS="'diff.external'='scripts/pwn.sh'" git diff HEAD~1`,
    'exec',
    'diff.external through GIT_CONFIG_PARAMETERS',
  ),
  a(
    'git-config-count',
    'GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=diff.external GIT_CONFIG_VALUE_0=scripts/pwn.sh git diff HEAD~1',
    'exec',
    'GIT_CONFIG_COUNT / KEY_n / VALUE_n',
  ),
  a(
    'git-config-count-fsmonitor',
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch {MARK}; false' git diff --stat",
    'exec',
    'fsmonitor through GIT_CONFIG_COUNT',
  ),
  a(
    'git-config-global',
    'GIT_CONFIG_GLOBAL=scripts/evil.gitconfig git diff HEAD~1',
    'exec',
    'a committed file as the global config',
  ),
  a(
    'home',
    'HOME=scripts/evilhome git diff HEAD~1',
    'exec',
    '$HOME/.gitconfig from the repository',
  ),
  a(
    'xdg-config-home',
    'XDG_CONFIG_HOME=scripts/xdg git diff HEAD~1',
    'exec',
    '$XDG_CONFIG_HOME/git/config from the repository',
  ),
  a(
    'git-trace',
    'GIT_TRACE={REPO}/src/x.ts git log -1',
    'write',
    'git writes its trace into src/x.ts',
  ),
  a(
    'git-trace-performance',
    'GIT_TRACE_PERFORMANCE={REPO}/src/x.ts git diff',
    'write',
    'another trace variable',
  ),
  a(
    'git-trace2',
    'GIT_TRACE2={REPO}/src/trace.txt git log -1',
    'write',
    'trace2 creates a file under src',
  ),
  a(
    'git-trace2-event',
    'GIT_TRACE2_EVENT={REPO}/.git/hooks/pre-commit git log -1',
    'write',
    'trace2 writes a hook file under .git',
  ),
  // npm: node options and script shell through the environment and config
  a(
    'npm-config-node-options',
    `npm_config_node_options=${REQUIRE} npm test`,
    'exec',
    'npm reads options from npm_config_*',
  ),
  a(
    'npm-config-upper',
    `NPM_CONFIG_NODE_OPTIONS=${REQUIRE} npm test`,
    'exec',
    'upper-case spelling of the same',
  ),
  a('node-options', `NODE_OPTIONS=${REQUIRE} npm test`, 'exec', 'NODE_OPTIONS on the command'),
  a('node-options-export', `export NODE_OPTIONS=${REQUIRE}; npm test`, 'exec', 'through export'),
  a(
    'node-options-declare-x',
    `declare -x NODE_OPTIONS=${REQUIRE}; npm test`,
    'exec',
    'through declare -x',
  ),
  a(
    'node-options-typeset-x',
    `typeset -x NODE_OPTIONS=${REQUIRE}; npm test`,
    'exec',
    'through typeset -x',
  ),
  a(
    'node-options-quoted-name',
    `export N''ODE_OPTIONS=${REQUIRE}; npm test`,
    'exec',
    'a quoted, split variable name',
  ),
  a(
    'node-options-set-a',
    `set -a; NODE_OPTIONS=${REQUIRE}; npm test`,
    'exec',
    'set -a exports every later assignment',
  ),
  a(
    'npm-config-export',
    `export npm_config_node_options=${REQUIRE}; npm test`,
    'exec',
    'npm_config_* through export',
  ),
  a(
    'npm-script-shell-env',
    'npm_config_script_shell=scripts/pwn.sh npm test',
    'exec',
    'the script shell through the environment',
  ),
  a(
    'npm-userconfig',
    'npm_config_userconfig=scripts/npmrc npm test',
    'exec',
    'a committed npmrc with node-options',
  ),
  a('path', 'PATH=scripts/bin:$PATH npm test', 'exec', 'a committed `node` first on PATH'),
  a(
    'rg-config-path',
    'RIPGREP_CONFIG_PATH=scripts/rgrc rg x README.md',
    'exec',
    'a committed ripgrep config with --pre',
    { needs: ['rg'] },
  ),
  a(
    'export-substitution',
    'export $(echo NODE_OPTIONS=--require=./scripts/pwn.cjs); npm test',
    'exec',
    'the assignment comes out of a substitution',
  ),
  a(
    'read-into-name',
    "read NODE_OPTIONS <<< '--require ./scripts/pwn.cjs'; export NODE_OPTIONS; npm test",
    'exec',
    'read sets the variable',
  ),
  a(
    'source-process-substitution',
    'source <(echo export NODE_OPTIONS=--require=./scripts/pwn.cjs); npm test',
    'exec',
    'source of a process substitution',
  ),
];
