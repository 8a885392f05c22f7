/**
 * `Promise.prototype.then` as the registry found it: called on a promise an interceptor or a body
 * made, so that a `then` of its own (an own property, or a prototype patched later) is never what
 * runs, nor runs twice. Calling it costs what `promise.then(...)` costs.
 */
export const promiseThen = Promise.prototype.then;
