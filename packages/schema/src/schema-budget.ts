import { formatBytes } from './describe';
import { SchemaRefusal } from './schema-check';

/**
 * The default schema budget, in UTF-8 bytes of JSON: for a tool, its description plus its
 * parameters. A schema is sent to the model on every turn and compiled into code that grows
 * with it, so its size is bounded before anything else is done with it.
 */
export const DEFAULT_MAX_SCHEMA_BYTES = 64 * 1024;

/**
 * Refuses a schema whose size (with its description, for a tool) is over the budget: throws a
 * {@link SchemaRefusal} about the schema as a whole, saying `what` is how big, the limit, and
 * `how` to raise it.
 */
export const checkBudget = (bytes: number, limit: number, what: string, how: string): void => {
  if (bytes > limit) {
    throw new SchemaRefusal(
      '',
      `${what} is ${formatBytes(bytes)} bytes, over the schema budget of ${formatBytes(limit)} bytes; shorten it, or raise the budget with ${how}`,
      true,
    );
  }
};

/**
 * Reads a `maxSchemaBytes` option: a whole number of bytes >= 1, or `undefined` for
 * {@link DEFAULT_MAX_SCHEMA_BYTES}. Throws a `TypeError` naming `where` the option was given.
 */
export const readBudget = (value: unknown, where: string): number => {
  if (value === undefined) return DEFAULT_MAX_SCHEMA_BYTES;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new TypeError(
      `${where}: "maxSchemaBytes" must be a whole number of bytes >= 1 (got ${String(value)}).`,
    );
  }
  return value;
};
