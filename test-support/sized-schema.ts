// Shared by the registry's compiling-worker tests and bench/validation.bench.ts; not part of any package.

/**
 * An object schema of about `bytes` as JSON (and of every property in `extra`): as many
 * properties as fit, each a string with a description, a pattern of its own and a length limit;
 * no other property is allowed.
 */
export function sizedSchema(bytes: number, extra: Record<string, unknown> = {}) {
  const properties: Record<string, unknown> = { ...extra };
  for (let i = 0; JSON.stringify({ type: 'object', properties }).length < bytes - 200; i++) {
    properties[`field_${i}`] = {
      type: 'string',
      description: `Field ${i}`,
      pattern: `^f${i}-[a-z0-9]+$`,
      maxLength: 64,
    };
  }
  return { type: 'object' as const, properties, additionalProperties: false };
}
