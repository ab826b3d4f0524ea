/**
 * A run's JavaScript tests split into top-level statements, so that each test runs on its own
 * and the values of a comparison reach the worker (outside QuickJS) to be compared there.
 * Applied to the wrapped, prepared tests (`wrapTests`, then types stripped), before
 * `instrumentTests`. The tests are the caller's text: their split is never the program's.
 *
 * - A comparison (`assert.strictEqual(A, B)`, `assert.deepEqual`, `assert.equal`, their `not`
 *   forms, `assert(A)`, `assert.ok(A)`, `console.assert(A)`, `expect(A).toBe(B)` / `toEqual` /
 *   `toStrictEqual` / `toBeTruthy` / `toBeFalsy` and `.not.` forms, and `eq(A, B)`-style helpers
 *   the tests define — `eq`, `assertEqual`, `assertEquals`, `expectEqual` — which compare as
 *   `JSON.stringify` does) becomes
 *   `try { CASE(i, 0, (A)); CASE(i, 1, (B)); CASE(i, 2) } catch (e) { CASE(i, -1, e) }`: the
 *   helper named in the test is never called.
 * - Another statement that checks something (a call of such a helper, a `throw`) becomes
 *   `try { S; CASE(i, 3) } catch (e) { CASE(i, -1, e) }`, or for an expression
 *   `try { CASE(i, 4, (E)) } catch ...` (its promise, if it is one, is watched by its state):
 *   a test the engine's own evaluation decides.
 * - Declarations and other statements stay as they are, in order (setup).
 * A lone top-level block (`{ const eq = ...; eq(f(1), 2); }`) is looked into. Every line stays
 * where it was (newlines the rewrite drops are added after the statement).
 */
import type { Program } from "acorn";
import { parse } from "./acorn.js";
import { walkNodes, type AnyNode } from "./walk.js";

/** Name of the tests' function's parameter that records each test's values (see guest-context.ts). */
export const TESTS_CASE_NAME = "__sandboxTestCase";

/** What a JavaScript test compares. */
export type JsTestOp =
  | "strictEqual"
  | "notStrictEqual"
  | "deepStrictEqual"
  | "notDeepStrictEqual"
  | "equal"
  | "notEqual"
  | "deepEqual"
  | "notDeepEqual"
  | "toBe"
  | "toEqual"
  | "toStrictEqual"
  | "json"
  | "truthy"
  | "falsy";

/** One top-level statement of the tests. */
export interface JsTestStep {
  role: "setup" | "test";
  /** 1-based line in the tests text. */
  line: number;
  source: string;
  /** For a comparison the worker judges: the operator, its `not`, and the sides' sources. */
  op?: JsTestOp;
  negate?: boolean;
  left?: string;
  right?: string;
}

/** Statements split at most; later ones run as they are. */
export const MAX_JS_TEST_STEPS = 500;

const ASSERT_OPS = new Set(["strictEqual", "notStrictEqual", "deepStrictEqual", "notDeepStrictEqual", "equal", "notEqual", "deepEqual", "notDeepEqual"]);
const HELPERS = new Set(["eq", "assertEqual", "assertEquals", "expectEqual"]);
const CHECKERS = /^(?:assert|expect|eq|assertEqual|assertEquals|expectEqual|check|same|throws|assertThrows)$/;

function name(node: AnyNode | undefined): string | undefined {
  if (!node) return undefined;
  if (node.type === "Identifier") return node.name as string;
  return undefined;
}

function member(node: AnyNode): [string | undefined, string | undefined] {
  if (node.type !== "MemberExpression" || node.computed) return [undefined, undefined];
  return [name(node.object as AnyNode), name(node.property as AnyNode)];
}

interface Shape {
  op: JsTestOp;
  negate: boolean;
  args: AnyNode[];
}

/** The comparison a call expression makes, if it is one of the known shapes. */
function shapeOf(call: AnyNode): Shape | undefined {
  if (call.type !== "CallExpression" || call.optional) return undefined;
  const callee = call.callee as AnyNode;
  const args = call.arguments as AnyNode[];
  if (args.some((a) => a.type === "SpreadElement")) return undefined;
  const calleeName = name(callee);
  if (calleeName === "assert" && args.length >= 1) return { op: "truthy", negate: false, args: [args[0]!] };
  if (calleeName !== undefined && HELPERS.has(calleeName) && args.length >= 2) return { op: "json", negate: false, args: [args[0]!, args[1]!] };
  const [object, property] = member(callee);
  if (object === "assert" && property !== undefined) {
    if (property === "ok" && args.length >= 1) return { op: "truthy", negate: false, args: [args[0]!] };
    if (ASSERT_OPS.has(property) && args.length >= 2) {
      const negate = property.startsWith("not");
      const base = negate ? `${property[3]!.toLowerCase()}${property.slice(4)}` : property;
      return { op: base as JsTestOp, negate, args: [args[0]!, args[1]!] };
    }
  }
  if (object === "console" && property === "assert" && args.length >= 1) return { op: "truthy", negate: false, args: [args[0]!] };
  // expect(A).toBe(B), expect(A).not.toEqual(B), expect(A).toBeTruthy()
  if (callee.type === "MemberExpression" && !callee.computed) {
    const matcher = name(callee.property as AnyNode);
    let target = callee.object as AnyNode;
    let negate = false;
    if (target.type === "MemberExpression" && !target.computed && name(target.property as AnyNode) === "not") {
      negate = true;
      target = target.object as AnyNode;
    }
    if (target.type === "CallExpression" && name(target.callee as AnyNode) === "expect" && (target.arguments as AnyNode[]).length === 1) {
      const actual = (target.arguments as AnyNode[])[0]!;
      if (actual.type === "SpreadElement") return undefined;
      if ((matcher === "toBe" || matcher === "toEqual" || matcher === "toStrictEqual") && args.length === 1) return { op: matcher, negate, args: [actual, args[0]!] };
      if (matcher === "toBeTruthy" && args.length === 0) return { op: "truthy", negate, args: [actual] };
      if (matcher === "toBeFalsy" && args.length === 0) return { op: "falsy", negate, args: [actual] };
    }
  }
  return undefined;
}

/** Whether a statement checks something (calls a checker, throws): then it is a test. */
function checks(statement: AnyNode): boolean {
  return walkNodes(statement, (n) => {
    if (n.type === "ThrowStatement") return true;
    if (n.type !== "CallExpression") return false;
    const callee = n.callee as AnyNode;
    const direct = name(callee);
    if (direct !== undefined && CHECKERS.test(direct)) return true;
    const [object, property] = member(callee);
    return object === "assert" || (object === "console" && property === "assert") || (callee.type === "MemberExpression" && shapeOf(n) !== undefined);
  });
}

const DECLARATIONS = new Set(["VariableDeclaration", "FunctionDeclaration", "ClassDeclaration", "ImportDeclaration"]);

/** The split and the rewritten code of wrapped, prepared tests. */
export interface SplitJsTests {
  code: string;
  steps: JsTestStep[];
}

/**
 * Splits and rewrites wrapped, prepared tests (see the module comment). Code that does not parse
 * as the wrapper is returned unchanged, with no steps.
 *
 * @example
 * splitJsTests("(async (a, b) => {assert.strictEqual(f(), 2)\n})").steps[0]?.op; // "strictEqual"
 */
export function splitJsTests(code: string): SplitJsTests {
  let ast: Program;
  try {
    ast = parse(code, { ecmaVersion: "latest", sourceType: "script", allowAwaitOutsideFunction: true, locations: true });
  } catch {
    return { code, steps: [] };
  }
  const wrapper = (ast.body[0] as AnyNode | undefined)?.expression as AnyNode | undefined;
  const body = wrapper?.type === "ArrowFunctionExpression" ? (wrapper.body as AnyNode) : undefined;
  if (body?.type !== "BlockStatement") return { code, steps: [] };
  let statements = body.body as AnyNode[];
  // `{ ... }` alone: its statements are the tests (their block scope is kept as it is).
  if (statements.length === 1 && statements[0]!.type === "BlockStatement") statements = statements[0]!.body as AnyNode[];
  const edits: { start: number; end: number; text: string }[] = [];
  const steps: JsTestStep[] = [];
  const lineAt = (n: AnyNode) => (n.loc as { start: { line: number } }).start.line;
  const text = (n: AnyNode) => code.slice(n.start, n.end);
  const newlines = (s: string) => "\n".repeat((s.match(/\n/g) ?? []).length);
  for (const statement of statements) {
    if (steps.length >= MAX_JS_TEST_STEPS) break;
    const i = steps.length;
    const source = text(statement);
    const step: JsTestStep = { role: "setup", line: lineAt(statement), source };
    if (DECLARATIONS.has(statement.type) || statement.type === "EmptyStatement" || !checks(statement)) {
      steps.push(step);
      continue;
    }
    step.role = "test";
    const catcher = `catch (__sandboxTestError) {${TESTS_CASE_NAME}(${i}, -1, __sandboxTestError)}`;
    let expression = statement.type === "ExpressionStatement" ? (statement.expression as AnyNode) : undefined;
    const awaited = expression?.type === "AwaitExpression";
    if (awaited) expression = expression!.argument as AnyNode;
    const shape = expression ? shapeOf(expression) : undefined;
    if (shape) {
      step.op = shape.op;
      step.negate = shape.negate;
      step.left = text(shape.args[0]!);
      if (shape.args[1]) step.right = text(shape.args[1]);
      const parts = shape.args.map((arg, k) => `${TESTS_CASE_NAME}(${i}, ${k}, (${text(arg)}));`).join("");
      const kept = parts.replace(/[^\n]/g, "");
      const rewritten = `try {${parts}${TESTS_CASE_NAME}(${i}, 2)} ${catcher}`;
      edits.push({ start: statement.start, end: statement.end, text: rewritten + newlines(source).slice(kept.length) });
    } else {
      // An expression's value goes to the worker (slot 4): a promise (an async IIFE) is watched
      // by its state as the engine holds it, never awaited through the guest's `then`.
      const text4 = expression && !awaited ? `${TESTS_CASE_NAME}(${i}, 4, (${text(expression)}));` : `${source};${TESTS_CASE_NAME}(${i}, 3);`;
      edits.push({ start: statement.start, end: statement.end, text: `try {${text4}} ${catcher}` });
    }
    steps.push(step);
  }
  if (!steps.some((s) => s.role === "test")) return { code, steps: [] };
  let out = code;
  for (const e of edits.sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return { code: out, steps };
}
