// The attack corpus's own checks, and its class 1 (options of allowed programs), run unguarded
// then guarded: see attacks-suite.ts.
import { describeClasses, describeCorpus, SPLIT } from './attacks-suite';

describeCorpus();
describeClasses(SPLIT[0] ?? []);
