/**
 * The TypeScript library the type check uses: what the sandbox's JavaScript engine (QuickJS,
 * quickjs-emscripten 0.32.0, bellard 2025-09-13) actually provides, so that working code is
 * never sent to repair for using a built-in the engine has, and code that uses one it lacks is
 * told so before it runs. `test/typecheck/engine-lib.test.ts` runs every built-in these files
 * declare in the sandbox.
 *
 * - ES2023, less the shared-memory files: QuickJS has no `Atomics` (nor, then, the
 *   `SharedArrayBuffer` those files declare with it).
 * - ES2024 without `Atomics.waitAsync` and without resizable `ArrayBuffer`s (the sandbox
 *   removes `resize`, `transfer` and `transferToFixedLength`: docs/security.md):
 *   `Object.groupBy`, `Map.groupBy`, `Promise.withResolvers`, `String.prototype.isWellFormed`,
 *   the RegExp `v` flag.
 * - From ES2025 and later: the `Set` methods (`union`, `intersection`, ...), iterator helpers
 *   (`Iterator.from`, `.map`, `.toArray`, ...), `Promise.try`, `Float16Array` and
 *   `Math.f16round`, `Error.isError`.
 * - Not declared, because QuickJS lacks them: `Array.fromAsync`, `DisposableStack` and
 *   `Symbol.dispose` (explicit resource management), `Atomics`.
 * - `Intl` is declared by ES5's own library file and the `es20xx.intl` files; the sandbox
 *   provides it (docs/sandbox.md, "`Intl`, dates and what differs from Node").
 */

/** Library files (names as in `typescript/lib`) given to the compiler as its `lib`. */
export const ENGINE_LIB_FILES: readonly string[] = [
  "es5",
  "es2015.core",
  "es2015.collection",
  "es2015.symbol",
  "es2015.iterable",
  "es2015.generator",
  "es2015.promise",
  "es2015.proxy",
  "es2015.reflect",
  "es2015.symbol.wellknown",
  "es2016.array.include",
  "es2016.intl",
  "es2017.arraybuffer",
  "es2017.date",
  "es2017.intl",
  "es2017.object",
  "es2017.string",
  "es2017.typedarrays",
  "es2018.asynciterable",
  "es2018.asyncgenerator",
  "es2018.promise",
  "es2018.regexp",
  "es2018.intl",
  "es2019.array",
  "es2019.object",
  "es2019.string",
  "es2019.symbol",
  "es2019.intl",
  "es2020.intl",
  "es2020.bigint",
  "es2020.date",
  "es2020.number",
  "es2020.promise",
  "es2020.symbol.wellknown",
  "es2020.string",
  "es2021.promise",
  "es2021.string",
  "es2021.weakref",
  "es2021.intl",
  "es2022.array",
  "es2022.error",
  "es2022.intl",
  "es2022.object",
  "es2022.regexp",
  "es2022.string",
  "es2023.array",
  "es2023.collection",
  "es2023.intl",
  "es2024.collection",
  "es2024.object",
  "es2024.promise",
  "es2024.regexp",
  "es2024.string",
  "esnext.collection",
  "esnext.iterator",
  "esnext.promise",
  "esnext.float16",
  "esnext.error",
].map((name) => `lib.${name}.d.ts`);
