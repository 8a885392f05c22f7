/**
 * A caller's signal is read through AbortSignal's own accessors and EventTarget's own methods:
 * once `readCall` has checked that it is a real AbortSignal, nothing patched onto the instance
 * (a throwing `aborted` getter, a `removeEventListener` that throws) can make a read throw or lie,
 * so a signal can neither hang a call nor crash the process from a timer.
 */
export const abortedOf = Object.getOwnPropertyDescriptor(AbortSignal.prototype, 'aborted')!.get as (
  this: AbortSignal,
) => boolean;

/** The intrinsic `reason` getter of AbortSignal. */
export const reasonOf = Object.getOwnPropertyDescriptor(AbortSignal.prototype, 'reason')!.get as (
  this: AbortSignal,
) => unknown;

/** EventTarget's own `addEventListener`, immune to one patched onto the instance. */
export const listen: (
  this: EventTarget,
  type: string,
  listener: () => void,
  options?: { readonly once?: boolean },
) => void = EventTarget.prototype.addEventListener;

/** EventTarget's own `removeEventListener`, immune to one patched onto the instance. */
export const unlisten: (this: EventTarget, type: string, listener: () => void) => void =
  EventTarget.prototype.removeEventListener;

/** Whether a signal that `readCall` accepted is aborted; never throws. */
export const isAborted = (signal: AbortSignal | undefined): boolean =>
  signal !== undefined && abortedOf.call(signal);
