/**
 * `Symbol.dispose` for Node releases that lack it (Node 20.0–20.3), so TypeScript's `using`
 * works on QuickJS handles. The same symbol quickjs-emscripten falls back to, so its handles'
 * `[Symbol.dispose]` methods are found.
 */
const symbols = Symbol as unknown as { dispose?: symbol };
symbols.dispose ??= Symbol.for("Symbol.dispose");
export {};
