/**
 * Built-ins captured when the Deno worker loads, before any guest code: after its first run the
 * realm is the guest's (Python reaches `Object`, `Function` and their prototypes), so the code
 * that reads the interpreter afterwards (the pool's reset, session images) calls these, never the
 * realm's live ones. Runs inside the Deno worker.
 */
export const ReflectApply = Reflect.apply;
export const ownKeys = Reflect.ownKeys;
export const getOwnPropertyDescriptor = Reflect.getOwnPropertyDescriptor;
export const getPrototypeOf = Reflect.getPrototypeOf;
export const isExtensible = Reflect.isExtensible;
export const defineProperty = Reflect.defineProperty;
export const deleteProperty = Reflect.deleteProperty;
export const isArray = Array.isArray;
export const isView = ArrayBuffer.isView;
export const TypedArraySet = Uint8Array.prototype.set;
export const TypedArraySubarray = Uint8Array.prototype.subarray;
export const TypedArrayFill = Uint8Array.prototype.fill;
export const Uint8ArrayCtor = Uint8Array;
/** `%TypedArray%.prototype`'s `length` and `byteLength` getters. */
export const lengthGetter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), "length")!.get!;
export const byteLengthGetter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), "byteLength")!.get!;
