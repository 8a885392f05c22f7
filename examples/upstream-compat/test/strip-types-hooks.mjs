// Node module hooks for Node 20: the code runtime's worker-thread backend imports
// `stripTypeScriptTypes` from `node:module`, which Node adds in 22.13. Inside that package only,
// `node:module` resolves to a module that adds it, built on amaro (the stripper Node itself ships).
const shim = new URL('./strip-types-shim.mjs', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if (
    specifier === 'node:module' &&
    context.parentURL?.includes('/dsh-code-runtime-worker-thread/')
  ) {
    return { url: shim, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
