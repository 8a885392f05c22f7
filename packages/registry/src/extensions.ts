import { quote } from './describe';
import type { Extensions } from './types';

/** The fields the registry reads and checks itself; every other field is an extension. */
const isOwnField = (key: PropertyKey): boolean =>
  key === 'callId' ||
  key === 'name' ||
  key === 'arguments' ||
  key === 'agent' ||
  key === 'tool' ||
  key === 'signal';

const describeKey = (key: PropertyKey): string =>
  typeof key === 'string' ? quote(key) : String(key);

/**
 * The extension fields of an execution: its own enumerable fields other than `callId`, `name`,
 * `arguments`, `agent`, `tool` and `signal`, each value exactly as it is (not copied, not frozen,
 * not validated: a capability such as a process runner is an object with methods and state, and
 * it is the host's or an interceptor's, never the model's). Read through property descriptors, so
 * no getter is ever called; a field that is a getter or setter is refused (`{ problem }`), because
 * calling it could answer differently each time, and the refusal (a string, for the message) is
 * returned instead. `undefined` when there are none, the common case. May throw (a Proxy whose
 * `ownKeys` trap throws): callers read it where reads are guarded.
 */
export const readExtensions = (from: object): Extensions | string | undefined => {
  // The common case first, without allocating: no field but the registry's own (`for...in` walks
  // a cached key list; it also lists inherited keys, which only send the call to the full read).
  let others = Object.getOwnPropertySymbols(from).length > 0;
  if (!others) {
    for (const key in from) {
      if (!isOwnField(key)) {
        others = true;
        break;
      }
    }
  }
  if (!others) return undefined;
  let found: Record<PropertyKey, unknown> | undefined;
  for (const key of Reflect.ownKeys(from)) {
    if (isOwnField(key)) continue;
    const field = Reflect.getOwnPropertyDescriptor(from, key);
    if (field === undefined || !field.enumerable) continue;
    if (!('value' in field)) {
      return `field ${describeKey(key)} is a ${field.get ? 'getter' : 'setter'}; an extension field must be a plain value (the registry never calls a getter)`;
    }
    found ??= Object.create(null) as Record<PropertyKey, unknown>;
    found[key] = field.value;
  }
  return found;
};
