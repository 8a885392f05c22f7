// Classes 1–3 of the attack corpus in the narrowed sandbox, the analyzer's verdict off (see attacks-sandboxed.ts).
import { describeClasses } from './attacks-sandboxed';

describeClasses([1, 2, 3]);
