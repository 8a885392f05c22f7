import { describe, expect, it } from 'vitest';
import { createEmitter } from './emitter';

describe('createEmitter', () => {
  it('calls every listener in registration order with the emitted arguments', () => {
    const e = createEmitter<[number, string]>();
    const seen: string[] = [];
    e.on((n, s) => seen.push(`a${n}${s}`));
    e.on((n, s) => seen.push(`b${n}${s}`));
    e.emit(1, 'x');
    expect(seen).toEqual(['a1x', 'b1x']);
    expect(e.size).toBe(2);
  });

  it('contains a throwing listener and reports it by name, the others still run', () => {
    const errors: [unknown, string][] = [];
    const e = createEmitter<[]>({ onError: (error, name) => errors.push([error, name]) });
    const seen: string[] = [];
    const boom = new Error('boom');
    e.on(
      () => {
        throw boom;
      },
      { name: 'thrower' },
    );
    e.on(() => seen.push('after'));
    e.emit();
    expect(seen).toEqual(['after']);
    expect(errors).toEqual([[boom, 'thrower']]);
  });

  it('contains a rejecting async listener', async () => {
    const errors: string[] = [];
    const e = createEmitter<[]>({ onError: (_error, name) => errors.push(name) });
    e.on(async function asyncObserver() {
      throw new Error('later');
    });
    e.emit();
    await new Promise((resolve) => setTimeout(resolve, 1));
    expect(errors).toEqual(['asyncObserver']);
  });

  it('survives an onError that throws itself', () => {
    const e = createEmitter<[]>({
      onError: () => {
        throw new Error('reporter broke');
      },
    });
    const seen: number[] = [];
    e.on(() => {
      throw new Error('x');
    });
    e.on(() => seen.push(1));
    expect(() => e.emit()).not.toThrow();
    expect(seen).toEqual([1]);
  });

  it('takes the listener list when an emission starts; disposal is idempotent', () => {
    const e = createEmitter<[]>();
    const seen: string[] = [];
    let disposeB = () => {};
    e.on(() => {
      seen.push('a');
      disposeB();
      e.on(() => seen.push('late'));
    });
    disposeB = e.on(() => seen.push('b'));
    e.emit();
    expect(seen).toEqual(['a', 'b']);
    disposeB();
    expect(e.size).toBe(2);
  });

  it('rejects a non-function listener', () => {
    expect(() => createEmitter().on(42 as never)).toThrow(TypeError);
  });
});
