// Classes 5-9 and plan mode of the attack corpus, run unguarded then guarded, and plan mode running
// the read-only commands: see attacks-suite.ts.
import { describeClasses, describePlanRuns, SPLIT } from './attacks-suite';

describeClasses(SPLIT[2] ?? []);
describePlanRuns();
