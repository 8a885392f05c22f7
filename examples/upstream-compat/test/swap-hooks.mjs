// Node module hooks: every import of `@deepseek-ai/dsh-tools` gets `dsh-tools/harness`, as an
// npm `overrides` entry pointing that name at a stand-in package would. Its subpaths (the
// invariant companion) stay upstream's.
const here = import.meta.url;

export async function resolve(specifier, context, nextResolve) {
  if (specifier === '@deepseek-ai/dsh-tools') {
    return nextResolve('dsh-tools/harness', { ...context, parentURL: here });
  }
  return nextResolve(specifier, context);
}
