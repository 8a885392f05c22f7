#!/usr/bin/env node
// Fails when the pending changesets would release a package that `dsh-tools` re-exports at a
// minor or major while `dsh-tools` itself gets less.
//
// Why: `dsh-tools` re-exports every export of its workspace dependencies, so their API is its API.
// A minor of one of them (new exports; at 0.x, a breaking change) is a minor of `dsh-tools`, and a
// major is a major. Changesets only gives a dependent a patch when a dependency leaves its range,
// so a user on `dsh-tools@^0.1.0` would be handed a breaking change as a patch. This reads the
// release plan exactly as `changeset version` would compute it (the bumps the changesets name,
// plus those changesets adds for dependents) and compares the two.
//
// Usage: node scripts/check-release.mjs [--cwd <repository root>]
// Exit codes: 0 the plan is consistent, 1 `dsh-tools` must be bumped further, 2 the check could
// not run (no changesets setup, no `dsh-tools` package, unreadable changeset).
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

/** The meta-package whose release must keep up with what it re-exports. */
const META = 'dsh-tools';
const LEVELS = ['none', 'patch', 'minor', 'major'];
const level = (type) => Math.max(0, LEVELS.indexOf(type ?? 'none'));

// @changesets/get-release-plan and @manypkg/get-packages are what `changeset version` itself
// uses; they are dependencies of the pinned @changesets/cli, resolved from it, so the plan read
// here is the one the release will apply.
const fromCli = createRequire(
  createRequire(import.meta.url).resolve('@changesets/cli/package.json'),
);
const getReleasePlan = fromCli('@changesets/get-release-plan').default;
const { getPackages } = fromCli('@manypkg/get-packages');

const { values } = parseArgs({ options: { cwd: { type: 'string' } } });
const cwd = resolve(values.cwd ?? process.cwd());

/** Stops the check with exit code 2: it could not tell either way. */
function unable(message, cause) {
  console.error(
    `check-release: ${message}${cause ? `\n${cause instanceof Error ? cause.message : String(cause)}` : ''}`,
  );
  process.exit(2);
}

let packages;
let plan;
try {
  packages = (await getPackages(cwd)).packages;
  plan = await getReleasePlan(cwd);
} catch (error) {
  unable(`could not read the workspace and its pending changesets in ${cwd}.`, error);
}

const meta = packages.find((p) => p.packageJson.name === META);
if (!meta) unable(`no workspace package is named "${META}" in ${cwd}.`);

const workspaceNames = new Set(packages.map((p) => p.packageJson.name));
/** Every workspace package `dsh-tools` depends on at run time, and so re-exports. */
const reexported = Object.keys(meta.packageJson.dependencies ?? {}).filter((name) =>
  workspaceNames.has(name),
);

const releaseOf = (name) => plan.releases.find((r) => r.name === name);
const metaType = releaseOf(META)?.type ?? 'none';
/** `0.1.0 → 0.2.0`, or '' when the package is not released. */
const versions = (name) => {
  const r = releaseOf(name);
  return r && r.type !== 'none' ? `${r.oldVersion} → ${r.newVersion}` : '';
};

/** The re-exported packages released at a minor or major, with the changesets that ask for it. */
const demanding = reexported
  .map((name) => ({ name, type: releaseOf(name)?.type ?? 'none' }))
  .filter(({ type }) => level(type) >= level('minor'))
  .map(({ name, type }) => ({
    name,
    type,
    belowOne: (releaseOf(name)?.oldVersion ?? '').startsWith('0.'),
    changesets: plan.changesets
      .filter((c) => c.releases.some((r) => r.name === name && level(r.type) >= level('minor')))
      .map((c) => `.changeset/${c.id}.md`),
  }));

const needed = demanding.reduce((max, d) => (level(d.type) > level(max) ? d.type : max), 'none');

if (level(metaType) >= level(needed)) {
  console.log(
    demanding.length === 0
      ? `check-release: ok, no package ${META} re-exports gets a minor or major release (${META}: ${metaType}).`
      : `check-release: ok, ${META} gets a ${metaType} release, at least what its re-exported packages get (${demanding.map((d) => `${d.name} ${d.type}`).join(', ')}).`,
  );
  process.exit(0);
}

const lines = [
  `check-release: ${META} re-exports packages that the pending changesets release at ${needed}, but ${META} itself gets ${metaType === 'none' ? 'no release' : `only a ${metaType} (${versions(META)})`}:`,
  ...demanding
    .filter((d) => level(d.type) > level(metaType))
    .map(
      (d) =>
        `  ${d.name}: ${d.type}, ${versions(d.name)}${d.changesets.length ? ` (${d.changesets.join(', ')})` : ' (as a dependent of another release)'}`,
    ),
  `Their exports are ${META}'s exports, so ${META} must be released at ${needed} too${needed === 'minor' && demanding.some((d) => d.belowOne) ? ' (below 1.0, a minor is a breaking change)' : ''}. Add a changeset, say .changeset/${META}-reexports.md:`,
  '  ---',
  `  '${META}': ${needed}`,
  '  ---',
  '',
  `  What changes for users of ${META} (the re-exported changes, in a sentence or two).`,
];
console.error(lines.join('\n'));
process.exit(1);
