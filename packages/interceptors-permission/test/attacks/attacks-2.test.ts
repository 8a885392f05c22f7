// Classes 2-4 of the attack corpus (operands, environment, shell evaluation), run unguarded then
// guarded: see attacks-suite.ts.
import { describeClasses, SPLIT } from './attacks-suite';

describeClasses(SPLIT[1] ?? []);
