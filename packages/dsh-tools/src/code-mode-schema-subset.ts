/**
 * The DeepSeek Harness's JSON Schema subset, as a yes/no question: `type` (one name), `oneOf`,
 * `properties`, `required`, `additionalProperties`, `items`, `enum`, `const`, and the annotations
 * `description`, `title`, `default`, `examples`. The harness's Python SDK declares a schema only
 * when the whole of it is inside this subset (anything else is `Any`), so our Python renderer asks
 * the same question to declare the same text. Our registry enforces more (`anyOf`, `$ref`, type
 * lists), which is why this is not its compile check.
 */

const CONSTRAINTS = new Set([
  'type',
  'oneOf',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
]);
const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples']);
/** What `oneOf` may not stand beside, and what needs a `type` or a `oneOf` to mean anything. */
const TYPED_ONLY = ['properties', 'required', 'additionalProperties', 'items', 'enum', 'const'];
const TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);
const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null']);
/** Which types each keyword belongs to (`type` and `oneOf` are checked apart). */
const KEYWORD_TYPES: Record<string, (type: string) => boolean> = {
  properties: (type) => type === 'object',
  required: (type) => type === 'object',
  additionalProperties: (type) => type === 'object',
  items: (type) => type === 'array',
  enum: (type) => SCALAR_TYPES.has(type),
  const: (type) => SCALAR_TYPES.has(type),
};

const has = (node: object, key: string): boolean => Object.hasOwn(node, key);

/** Whether `prototype` is some realm's own `Object.prototype` or `Array.prototype`. */
function isIntrinsic(prototype: object, name: 'Object' | 'Array'): boolean {
  const maker: unknown = Object.getOwnPropertyDescriptor(prototype, 'constructor')?.value;
  if (typeof maker !== 'function') return false;
  try {
    return (
      maker.name === name &&
      maker.prototype === prototype &&
      Function.prototype.toString.call(maker) === `function ${name}() { [native code] }`
    );
  } catch {
    return false;
  }
}

const isObjectPrototype = (value: object): boolean =>
  Object.getPrototypeOf(value) === null && isIntrinsic(value, 'Object');

/** A plain (or null-prototype) object whose keys are all enumerable strings. */
function isRecordNode(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  try {
    const prototype: unknown = Object.getPrototypeOf(value);
    if (prototype !== null && !(typeof prototype === 'object' && isObjectPrototype(prototype))) {
      return false;
    }
    return Reflect.ownKeys(value).every(
      (key) => typeof key === 'string' && Object.prototype.propertyIsEnumerable.call(value, key),
    );
  } catch {
    return false;
  }
}

/** An ordinary dense array (no subclass, no extra keys). */
function isDenseArray(value: unknown): value is unknown[] {
  if (!Array.isArray(value)) return false;
  try {
    const prototype: unknown = Object.getPrototypeOf(value);
    if (!Array.isArray(prototype) || !isIntrinsic(prototype, 'Array')) return false;
    const base: unknown = Object.getPrototypeOf(prototype);
    if (typeof base !== 'object' || base === null || !isObjectPrototype(base)) return false;
    if (Reflect.ownKeys(value).length !== value.length + 1) return false;
    for (let index = 0; index < value.length; index++)
      if (!Object.hasOwn(value, index)) return false;
    return true;
  } catch {
    return false;
  }
}

const isJsonNumber = (value: unknown): boolean =>
  typeof value === 'number' && Number.isFinite(value) && !Object.is(value, -0);

/** Whether `value` survives a JSON round trip unchanged (the harness's rule for annotations). */
function isLosslessJson(value: unknown): boolean {
  const open = new Set<object>();
  const stack: { value: unknown; leave?: object }[] = [{ value }];
  for (let task = stack.pop(); task !== undefined; task = stack.pop()) {
    if (task.leave !== undefined) {
      open.delete(task.leave);
      continue;
    }
    const current = task.value;
    if (current === null || typeof current === 'boolean' || typeof current === 'string') continue;
    if (typeof current === 'number') {
      if (!isJsonNumber(current)) return false;
      continue;
    }
    if (typeof current !== 'object' || open.has(current)) return false;
    const children = Array.isArray(current)
      ? isDenseArray(current)
        ? current
        : undefined
      : isRecordNode(current)
        ? Object.values(current)
        : undefined;
    if (children === undefined) return false;
    open.add(current);
    stack.push({ value: undefined, leave: current });
    for (const child of children) stack.push({ value: child });
  }
  return true;
}

/** Whether a scalar `value` is of JSON Schema type `type`. */
function fits(type: string, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return isJsonNumber(value);
    case 'integer':
      return isJsonNumber(value) && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    default:
      return value === null;
  }
}

/** Whether one node's own keywords are right; its child schemas are returned to be checked. */
function checkNode(node: Record<string, unknown>): unknown[] | false {
  for (const key of Object.keys(node)) {
    if (CONSTRAINTS.has(key)) continue;
    if (!ANNOTATIONS.has(key) || !isLosslessJson(node[key])) return false;
  }
  for (const key of ['description', 'title']) {
    if (has(node, key) && typeof node[key] !== 'string') return false;
  }
  const typed = has(node, 'type');
  if (typed === has(node, 'oneOf')) {
    // Both, or neither: neither is a schema of annotations only, with nothing typed beside them.
    return !typed && TYPED_ONLY.every((key) => !has(node, key)) && [];
  }
  if (!typed) {
    const branches = node.oneOf;
    if (!isDenseArray(branches) || branches.length < 2) return false;
    return TYPED_ONLY.every((key) => !has(node, key)) && branches;
  }
  const type = node.type;
  if (typeof type !== 'string' || !TYPES.has(type)) return false;
  for (const [key, allows] of Object.entries(KEYWORD_TYPES)) {
    if (has(node, key) && !allows(type)) return false;
  }
  if (type === 'array') return has(node, 'items') ? [node.items] : [];
  if (type === 'object') return checkObject(node);
  const enumerated = has(node, 'enum');
  const values = node.enum;
  const enumOk =
    isDenseArray(values) && values.length > 0 && values.every((value) => fits(type, value));
  if (enumerated && !enumOk) return false;
  if (has(node, 'const')) {
    if (!fits(type, node.const)) return false;
    if (enumOk && !(values as unknown[]).includes(node.const)) return false;
  }
  return [];
}

function checkObject(node: Record<string, unknown>): unknown[] | false {
  const properties = node.properties;
  const declared = has(node, 'properties');
  if (declared && !isRecordNode(properties)) return false;
  if (has(node, 'required')) {
    const required = node.required;
    if (!isDenseArray(required) || required.some((entry) => typeof entry !== 'string')) {
      return false;
    }
    const names = declared ? (properties as Record<string, unknown>) : {};
    if (!required.every((name) => Object.hasOwn(names, name as string))) return false;
  }
  if (has(node, 'additionalProperties') && typeof node.additionalProperties !== 'boolean') {
    return false;
  }
  return declared ? Object.values(properties as Record<string, unknown>) : [];
}

/**
 * Whether the whole schema is inside the harness's subset: every node a plain object of known
 * keywords used as the subset allows, annotations lossless JSON, no node its own ancestor (a node
 * shared by two branches is fine). Never throws.
 */
export function isHarnessSubsetSchema(schema: unknown): boolean {
  const open = new Set<object>();
  const stack: { node: unknown; leave?: object }[] = [{ node: schema }];
  try {
    for (let task = stack.pop(); task !== undefined; task = stack.pop()) {
      if (task.leave !== undefined) {
        open.delete(task.leave);
        continue;
      }
      const node = task.node;
      if (!isRecordNode(node) || open.has(node)) return false;
      const children = checkNode(node);
      if (children === false) return false;
      open.add(node);
      stack.push({ node: undefined, leave: node });
      for (const child of children) stack.push({ node: child });
    }
    return true;
  } catch {
    // A getter that throws or a proxy that refuses: not a schema the SDK can declare.
    return false;
  }
}
