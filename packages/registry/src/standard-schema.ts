import type { ToolInputValidator } from '@dsh-tools/protocol';
import { MAX_VIOLATIONS, pointerSegment, type Violation } from '@dsh-tools/schema';

/** The outcome of validating arguments: the value to run with, or every problem found. */
export type ArgsCheck =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly violations: readonly Violation[]; readonly more: number };

/**
 * Runs a Standard Schema validator (zod, valibot, arktype, …). Its output value, which may be
 * transformed (defaults filled in, strings coerced), is what interceptors and the body receive.
 */
export const runStandardSchema = async (
  validator: ToolInputValidator<unknown>,
  args: unknown,
): Promise<ArgsCheck> => {
  let outcome = validator['~standard'].validate(args);
  if (outcome instanceof Promise) outcome = await outcome;
  if (!outcome.issues) return { ok: true, value: outcome.value };
  const issues = Array.from(outcome.issues);
  const violations = issues.slice(0, MAX_VIOLATIONS).map(
    (issue): Violation => ({
      path: (issue.path ?? [])
        .map((segment) => {
          const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
          return `/${pointerSegment(typeof key === 'symbol' ? key.toString() : (key as string | number))}`;
        })
        .join(''),
      message: String(issue.message),
    }),
  );
  return { ok: false, violations, more: Math.max(0, issues.length - MAX_VIOLATIONS) };
};
