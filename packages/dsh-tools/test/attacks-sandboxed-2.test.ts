// Classes 4–9 and plan mode of the attack corpus in the narrowed sandbox, the analyzer's verdict off (see attacks-sandboxed.ts).
import { describeClasses } from './attacks-sandboxed';

describeClasses([4, 5, 6, 7, 8, 9, 'plan']);
