#!/usr/bin/env node
// The bump each dependent needs because of what its workspace dependencies release, which
// `changeset version` alone does not give: changesets hands a dependent a patch when a dependency
// leaves its range (a major only through a peer dependency, which we do not use), whatever the
// dependency's change means for the dependent's own API. Here the dependent's published
// declarations say what that meaning is, edge by edge:
//
// - `export * from '<dep>'`: the dependency's API is the dependent's. A breaking release of the
//   dependency is a breaking release of the dependent, a minor a minor, a patch a patch.
// - any other mention of the dependency in the declarations (`export { x } from`, `import`): its
//   types are part of the dependent's API. A breaking release of the dependency is a breaking
//   release of the dependent; anything else a patch.
// - no mention: an implementation detail; changesets' own patch is right.
//
// "Breaking" is what the caret ranges our dependents use say: a new version outside `^old`
// (a major; below 1.0 a minor; below 0.1 a patch). A dependent's breaking release is likewise the
// smallest bump that leaves its own `^old`. Bumps are propagated until nothing changes (the
// meta-package re-exports the registry, which exposes the schema engine's types, ...).
//
// Usage: node scripts/implied-bumps.mjs [--cwd <root>] [--write | --version]
//   (default)   check: list the implied bumps the pending changesets lack; exit 1 if any.
//   --write     write them as changesets (.changeset/implied-<package>.md); exit 0.
//   --version   --write, then run `changeset version` (the release step).
// Needs the packages built (their dist/ declarations); a package without declarations is taken as
// exposing every dependency (the cautious reading), and said so. Exit 2 when it could not run.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const require = createRequire(import.meta.url);
const semver = require('semver');
// What `changeset version` itself uses, resolved from the pinned @changesets/cli.
const cliManifest = require.resolve('@changesets/cli/package.json');
const fromCli = createRequire(cliManifest);
const getReleasePlan = fromCli('@changesets/get-release-plan').default;
const { getPackages } = fromCli('@manypkg/get-packages');

const LEVELS = ['none', 'patch', 'minor', 'major'];
const level = (type) => Math.max(0, LEVELS.indexOf(type ?? 'none'));

/** Whether releasing `type` from `version` leaves the caret range of `version`. */
export function isBreaking(version, type) {
  if (type === 'none') return false;
  return !semver.satisfies(semver.inc(version, type), `^${version}`);
}

/** The smallest bump of `version` that leaves its caret range: its breaking release. */
export function breakingBump(version) {
  return ['patch', 'minor', 'major'].find((t) => isBreaking(version, t)) ?? 'major';
}

/** Every declaration file under `dir`. */
function declarations(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.d\.[cm]?ts$/.test(e.name))
    .map((e) => join(e.parentPath ?? e.path, e.name));
}

/**
 * How `dependent` (a folder) uses `dependency` (a name) in its published declarations: 'all'
 * (`export *`), 'types' (mentioned), 'internal' (not mentioned) or 'unknown' (no declarations).
 */
export function edgeKind(dependentDir, dependency) {
  const files = declarations(join(dependentDir, 'dist'));
  if (files.length === 0) return 'unknown';
  const quoted = `['"]${dependency.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}['"]`;
  const reexportAll = new RegExp(`export\\s*\\*\\s*from\\s*${quoted}`);
  const mention = new RegExp(`from\\s*${quoted}|import\\(\\s*${quoted}\\s*\\)`);
  let kind = 'internal';
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    if (reexportAll.test(text)) return 'all';
    if (mention.test(text)) kind = 'types';
  }
  return kind;
}

/** The bump `dependency`'s release implies for a dependent at `dependentVersion`, by edge kind. */
export function impliedBump(kind, dependencyRelease, dependentVersion) {
  const { type, oldVersion } = dependencyRelease;
  if (type === 'none' || kind === 'internal') return 'none';
  if (isBreaking(oldVersion, type)) return breakingBump(dependentVersion);
  if (kind === 'all' && type === 'minor') return 'minor';
  return 'patch';
}

/**
 * The implied bumps the pending changesets of the workspace at `cwd` lack: one entry per package
 * whose release must go higher, with the dependencies that ask for it.
 */
export async function missingBumps(cwd) {
  const { packages } = await getPackages(cwd);
  const plan = await getReleasePlan(cwd);
  const byName = new Map(packages.map((p) => [p.packageJson.name, p]));
  const planned = new Map(plan.releases.map((r) => [r.name, r.type]));
  const release = new Map(
    packages.map((p) => [
      p.packageJson.name,
      { type: planned.get(p.packageJson.name) ?? 'none', oldVersion: p.packageJson.version },
    ]),
  );
  const edges = [];
  const unknown = new Set();
  for (const p of packages) {
    if (p.packageJson.private) continue;
    for (const [dep, range] of Object.entries(p.packageJson.dependencies ?? {})) {
      if (!byName.has(dep) || !String(range).startsWith('workspace:')) continue;
      let kind = edgeKind(p.dir, dep);
      if (kind === 'unknown') {
        unknown.add(p.packageJson.name);
        kind = 'types';
      }
      edges.push({ dependent: p.packageJson.name, dependency: dep, kind });
    }
  }
  // Raise until nothing changes: a raised dependent may raise its own dependents.
  const reasons = new Map();
  for (let changed = true; changed; ) {
    changed = false;
    for (const { dependent, dependency, kind } of edges) {
      const own = release.get(dependent);
      const dep = release.get(dependency);
      const implied = impliedBump(kind, dep, own.oldVersion);
      if (level(implied) > level(own.type)) {
        own.type = implied;
        changed = true;
      }
      if (implied !== 'none' && level(implied) >= level(own.type)) {
        const list = reasons.get(dependent) ?? new Map();
        list.set(dependency, { kind, ...dep, implied });
        reasons.set(dependent, list);
      }
    }
  }
  const missing = [];
  for (const [name, { type, oldVersion }] of release) {
    const had = planned.get(name) ?? 'none';
    // changesets itself gives a dependent a patch; only what goes beyond that is missing.
    if (level(type) <= Math.max(level(had), level('patch'))) continue;
    const because = [...(reasons.get(name) ?? new Map())]
      .filter(([, r]) => r.implied === type)
      .map(([dep, r]) => ({
        dependency: dep,
        type: r.type,
        versions: `${r.oldVersion} → ${semver.inc(r.oldVersion, r.type)}`,
        breaking: isBreaking(r.oldVersion, r.type),
        kind: r.kind,
      }));
    missing.push({ name, had, type, oldVersion, because });
  }
  return { missing, unknown: [...unknown] };
}

/** One sentence on why `entry` needs its bump, for a person and for the changelog. */
export function explain(entry) {
  const parts = entry.because.map(
    (b) =>
      `${b.dependency} ${b.type} (${b.versions}${b.breaking ? ', breaking' : ''}), whose ${b.kind === 'all' ? 'every export it re-exports' : 'types are part of its API'}`,
  );
  return `Follows ${parts.join('; ')}.`;
}

const isMain =
  process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname);
if (isMain) {
  const { values } = parseArgs({
    options: {
      cwd: { type: 'string' },
      write: { type: 'boolean', default: false },
      version: { type: 'boolean', default: false },
    },
  });
  const cwd = resolve(values.cwd ?? process.cwd());
  let result;
  try {
    result = await missingBumps(cwd);
  } catch (error) {
    console.error(
      `implied-bumps: could not read the workspace and its pending changesets in ${cwd}.\n${error instanceof Error ? error.message : String(error)}`,
    );
    process.exit(2);
  }
  for (const name of result.unknown) {
    console.warn(
      `implied-bumps: ${name} has no built declarations (dist/*.d.ts); its workspace dependencies are taken as part of its API. Run "pnpm build" for the exact answer.`,
    );
  }
  const { missing } = result;
  if (missing.length === 0) {
    console.log(
      'implied-bumps: ok, every dependent gets at least the bump its dependencies imply.',
    );
  } else if (!values.write && !values.version) {
    console.error(
      'implied-bumps: the pending changesets release dependents lower than their dependencies imply:',
    );
    for (const m of missing) {
      console.error(
        `  ${m.name}: ${m.type} needed, ${m.had === 'none' ? 'no release' : m.had} planned. ${explain(m)}`,
      );
    }
    console.error(
      'Run "node scripts/implied-bumps.mjs --write" to add these as changesets (or write them yourself, saying what changes for users).',
    );
    process.exit(1);
  } else {
    for (const m of missing) {
      const file = join(
        cwd,
        '.changeset',
        `implied-${m.name.replace(/^@/, '').replace(/\//g, '-')}.md`,
      );
      writeFileSync(file, `---\n"${m.name}": ${m.type}\n---\n\n${explain(m)}\n`);
      console.log(`implied-bumps: wrote ${file} (${m.name}: ${m.type})`);
    }
  }
  if (values.version) {
    const run = spawnSync(process.execPath, [join(cliManifest, '..', 'bin.js'), 'version'], {
      cwd,
      stdio: 'inherit',
    });
    process.exit(run.status ?? 1);
  }
}
