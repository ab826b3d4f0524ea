/**
 * Known-good solutions for every task in evals/tasks.jsonl, written independently of the
 * tasks' tests. The task-set test runs each one with its task's tests in the real sandbox
 * (they must pass) and runs a stub of the entry point (the tests must fail), so a broken
 * test or a broken task is caught before a model is blamed for it.
 */
export const referenceSolutions: Record<string, string> = {
  "js-sum-digits": `function sumDigits(n) {
  return String(Math.abs(n)).split("").reduce((sum, digit) => sum + Number(digit), 0);
}`,
  "js-is-palindrome": `function isPalindrome(text) {
  const clean = text.toLowerCase().replace(/[^a-z0-9]/g, "");
  return clean === clean.split("").reverse().join("");
}`,
  "js-fizzbuzz": `function fizzBuzz(n) {
  const out = [];
  for (let i = 1; i <= n; i++) {
    out.push(i % 15 === 0 ? "FizzBuzz" : i % 3 === 0 ? "Fizz" : i % 5 === 0 ? "Buzz" : String(i));
  }
  return out;
}`,
  "js-chunk": `function chunk(items, size) {
  if (!Number.isInteger(size) || size < 1) throw new RangeError("size must be a positive integer");
  const out = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}`,
  "js-balanced-brackets": `function isBalanced(text) {
  const pairs = { ")": "(", "]": "[", "}": "{" };
  const stack = [];
  for (const ch of text) {
    if (ch === "(" || ch === "[" || ch === "{") stack.push(ch);
    else if (ch in pairs) {
      if (stack.pop() !== pairs[ch]) return false;
    }
  }
  return stack.length === 0;
}`,
  "js-roman-to-int": `function romanToInt(roman) {
  const values = { I: 1, V: 5, X: 10, L: 50, C: 100, D: 500, M: 1000 };
  let total = 0;
  for (let i = 0; i < roman.length; i++) {
    const value = values[roman[i]];
    const next = values[roman[i + 1]] ?? 0;
    total += value < next ? -value : value;
  }
  return total;
}`,
  "js-group-anagrams": `function groupAnagrams(words) {
  const groups = new Map();
  for (const word of words) {
    const key = word.split("").sort().join("");
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(word);
  }
  return [...groups.values()]
    .map((group) => group.sort())
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}`,
  "js-eval-rpn": `function evalRPN(tokens) {
  const stack = [];
  const ops = {
    "+": (a, b) => a + b,
    "-": (a, b) => a - b,
    "*": (a, b) => a * b,
    "/": (a, b) => Math.trunc(a / b),
  };
  for (const token of tokens) {
    if (token in ops) {
      if (stack.length < 2) throw new Error("not enough operands for " + token);
      const b = stack.pop();
      const a = stack.pop();
      stack.push(ops[token](a, b));
    } else {
      stack.push(Number.parseInt(token, 10));
    }
  }
  if (stack.length !== 1) throw new Error("malformed expression");
  return stack[0];
}`,
  "js-spiral-order": `function spiralOrder(matrix) {
  const out = [];
  if (matrix.length === 0) return out;
  let top = 0, bottom = matrix.length - 1, left = 0, right = matrix[0].length - 1;
  while (top <= bottom && left <= right) {
    for (let c = left; c <= right; c++) out.push(matrix[top][c]);
    top++;
    for (let r = top; r <= bottom; r++) out.push(matrix[r][right]);
    right--;
    if (top <= bottom) {
      for (let c = right; c >= left; c--) out.push(matrix[bottom][c]);
      bottom--;
    }
    if (left <= right) {
      for (let r = bottom; r >= top; r--) out.push(matrix[r][left]);
      left++;
    }
  }
  return out;
}`,
  "js-parse-query": `function parseQuery(query) {
  const out = {};
  const text = query.startsWith("?") ? query.slice(1) : query;
  if (text === "") return out;
  const decode = (s) => decodeURIComponent(s.replace(/\\+/g, " "));
  for (const part of text.split("&")) {
    if (part === "") continue;
    const eq = part.indexOf("=");
    const key = decode(eq === -1 ? part : part.slice(0, eq));
    const value = eq === -1 ? "" : decode(part.slice(eq + 1));
    if (!(key in out)) out[key] = value;
    else if (Array.isArray(out[key])) out[key].push(value);
    else out[key] = [out[key], value];
  }
  return out;
}`,
  "js-lru-cache": `class LRUCache {
  constructor(capacity) {
    this.capacity = capacity;
    this.map = new Map();
  }
  get(key) {
    if (!this.map.has(key)) return -1;
    const value = this.map.get(key);
    this.map.delete(key);
    this.map.set(key, value);
    return value;
  }
  put(key, value) {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value);
  }
}`,
  "js-deep-equal": `function deepEqual(a, b) {
  if (a === b) return true;
  if (typeof a === "number" && typeof b === "number") return Number.isNaN(a) && Number.isNaN(b);
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
}`,
  "js-lcs-length": `function lcsLength(a, b) {
  let prev = new Array(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const row = new Array(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j++) {
      row[j] = a[i - 1] === b[j - 1] ? prev[j - 1] + 1 : Math.max(prev[j], row[j - 1]);
    }
    prev = row;
  }
  return prev[b.length];
}`,
  "ts-clamp": `function clamp(value: number, min: number, max: number): number {
  if (min > max) throw new RangeError(\`min (\${min}) is greater than max (\${max})\`);
  return Math.min(max, Math.max(min, value));
}`,
  "ts-binary-search": `function binarySearch(sorted: number[], target: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] === target) return mid;
    if (sorted[mid] < target) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}`,
  "ts-word-frequencies": `function wordFrequencies(text: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const word of text.toLowerCase().match(/[a-z0-9']+/g) ?? []) {
    counts[word] = (counts[word] ?? 0) + 1;
  }
  return counts;
}`,
  "ts-stack": `class Stack<T> {
  private items: T[] = [];
  push(item: T): void {
    this.items.push(item);
  }
  pop(): T {
    if (this.items.length === 0) throw new Error("pop from an empty stack");
    return this.items.pop() as T;
  }
  peek(): T | undefined {
    return this.items[this.items.length - 1];
  }
  size(): number {
    return this.items.length;
  }
  isEmpty(): boolean {
    return this.items.length === 0;
  }
}`,
  "ts-snake-case": `function toSnakeCase(name: string): string {
  return name
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase();
}`,
  "ts-parse-int-strict": `function parseIntStrict(text: string): { ok: true; value: number } | { ok: false; error: string } {
  const trimmed = text.trim();
  if (!/^[+-]?\\d+$/.test(trimmed)) return { ok: false, error: \`not an integer: \${JSON.stringify(text)}\` };
  const value = Number(trimmed);
  if (!Number.isSafeInteger(value)) return { ok: false, error: \`out of the safe integer range: \${trimmed}\` };
  return { ok: true, value };
}`,
  "ts-merge-intervals": `function mergeIntervals(intervals: Array<[number, number]>): Array<[number, number]> {
  const sorted = intervals.map(([s, e]) => [s, e] as [number, number]).sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const [start, end] of sorted) {
    const last = out[out.length - 1];
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else out.push([start, end]);
  }
  return out;
}`,
  "ts-run-length": `function encodeRLE(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; ) {
    let j = i;
    while (j < text.length && text[j] === text[i]) j++;
    out += String(j - i) + text[i];
    i = j;
  }
  return out;
}
function decodeRLE(encoded: string): string {
  let out = "";
  for (const [, count, ch] of encoded.matchAll(/(\\d+)(\\D)/g)) out += ch.repeat(Number(count));
  return out;
}`,
  "ts-typed-emitter": `class TypedEmitter<Events extends Record<string, unknown>> {
  private listeners = new Map<keyof Events, Array<(payload: any) => void>>();
  on<K extends keyof Events>(event: K, listener: (payload: Events[K]) => void): () => void {
    const list = this.listeners.get(event) ?? [];
    list.push(listener);
    this.listeners.set(event, list);
    return () => {
      const current = this.listeners.get(event) ?? [];
      this.listeners.set(event, current.filter((l) => l !== listener));
    };
  }
  emit<K extends keyof Events>(event: K, payload: Events[K]): number {
    const list = [...(this.listeners.get(event) ?? [])];
    for (const listener of list) listener(payload);
    return list.length;
  }
}`,
  "ts-topo-sort": `function topoSort(dependencies: Record<string, string[]>): string[] {
  const indegree = new Map<string, number>();
  const next = new Map<string, string[]>();
  const touch = (n: string) => {
    if (!indegree.has(n)) indegree.set(n, 0);
    if (!next.has(n)) next.set(n, []);
  };
  for (const [node, before] of Object.entries(dependencies)) {
    touch(node);
    for (const b of before) {
      touch(b);
      next.get(b)!.push(node);
      indegree.set(node, indegree.get(node)! + 1);
    }
  }
  const ready = [...indegree].filter(([, d]) => d === 0).map(([n]) => n);
  const order: string[] = [];
  while (ready.length > 0) {
    ready.sort();
    const node = ready.shift()!;
    order.push(node);
    for (const m of next.get(node)!) {
      indegree.set(m, indegree.get(m)! - 1);
      if (indegree.get(m) === 0) ready.push(m);
    }
  }
  if (order.length !== indegree.size) throw new Error("dependency cycle detected");
  return order;
}`,
  "ts-shortest-path": `function shortestPath(
  edges: Array<[string, string, number]>,
  from: string,
  to: string,
): { distance: number; path: string[] } | null {
  const adjacency = new Map<string, Array<[string, number]>>();
  for (const [a, b, w] of edges) {
    if (!adjacency.has(a)) adjacency.set(a, []);
    adjacency.get(a)!.push([b, w]);
  }
  const dist = new Map<string, number>([[from, 0]]);
  const prev = new Map<string, string>();
  const done = new Set<string>();
  while (true) {
    let current: string | undefined;
    for (const [node, d] of dist) {
      if (!done.has(node) && (current === undefined || d < dist.get(current)!)) current = node;
    }
    if (current === undefined) break;
    if (current === to) break;
    done.add(current);
    for (const [nextNode, w] of adjacency.get(current) ?? []) {
      const candidate = dist.get(current)! + w;
      if (!dist.has(nextNode) || candidate < dist.get(nextNode)!) {
        dist.set(nextNode, candidate);
        prev.set(nextNode, current);
      }
    }
  }
  if (!dist.has(to)) return null;
  const path = [to];
  while (path[0] !== from) path.unshift(prev.get(path[0])!);
  return { distance: dist.get(to)!, path };
}`,
  "py-factorial": `def factorial(n):
    if n < 0:
        raise ValueError("n must be non-negative")
    result = 1
    for i in range(2, n + 1):
        result *= i
    return result`,
  "py-count-vowels": `def count_vowels(text):
    return sum(1 for ch in text.lower() if ch in "aeiou")`,
  "py-second-largest": `def second_largest(numbers):
    distinct = sorted(set(numbers), reverse=True)
    return distinct[1] if len(distinct) >= 2 else None`,
  "py-caesar": `def caesar(text, shift):
    out = []
    for ch in text:
        if "a" <= ch <= "z":
            out.append(chr((ord(ch) - 97 + shift) % 26 + 97))
        elif "A" <= ch <= "Z":
            out.append(chr((ord(ch) - 65 + shift) % 26 + 65))
        else:
            out.append(ch)
    return "".join(out)`,
  "py-rotate-matrix": `def rotate_matrix(matrix):
    if not matrix:
        return []
    return [list(row) for row in zip(*matrix[::-1])]`,
  "py-primes": `def primes_up_to(n):
    if n < 2:
        return []
    sieve = bytearray([1]) * (n + 1)
    sieve[0] = sieve[1] = 0
    for i in range(2, int(n ** 0.5) + 1):
        if sieve[i]:
            sieve[i * i :: i] = bytearray(len(range(i * i, n + 1, i)))
    return [i for i, flag in enumerate(sieve) if flag]`,
  "py-valid-ipv4": `def is_valid_ipv4(text):
    parts = text.split(".")
    if len(parts) != 4:
        return False
    for part in parts:
        if not part or not part.isascii() or not part.isdigit():
            return False
        if len(part) > 1 and part[0] == "0":
            return False
        if int(part) > 255:
            return False
    return True`,
  "py-flatten-dict": `def flatten_dict(data, sep="."):
    out = {}

    def walk(value, prefix):
        if isinstance(value, dict) and value:
            for key, item in value.items():
                walk(item, f"{prefix}{sep}{key}" if prefix else str(key))
        elif isinstance(value, list) and value:
            for index, item in enumerate(value):
                walk(item, f"{prefix}{sep}{index}" if prefix else str(index))
        else:
            out[prefix] = value

    for key, value in data.items():
        walk(value, str(key))
    return out`,
  "py-trie": `class Trie:
    def __init__(self):
        self.root = {}

    def insert(self, word):
        node = self.root
        for ch in word:
            node = node.setdefault(ch, {})
        node["$"] = True

    def _find(self, prefix):
        node = self.root
        for ch in prefix:
            if ch not in node:
                return None
            node = node[ch]
        return node

    def search(self, word):
        node = self._find(word)
        return node is not None and "$" in node

    def starts_with(self, prefix):
        return self._find(prefix) is not None

    def words_with_prefix(self, prefix):
        node = self._find(prefix)
        found = []

        def walk(current, path):
            for key, child in current.items():
                if key == "$":
                    found.append(path)
                else:
                    walk(child, path + key)

        if node is not None:
            walk(node, prefix)
        return sorted(found)`,
  "py-knapsack": `def knapsack(items, capacity):
    best = [0] * (capacity + 1)
    for weight, value in items:
        for c in range(capacity, weight - 1, -1):
            best[c] = max(best[c], best[c - weight] + value)
    return best[capacity]`,
  "py-edit-distance": `def edit_distance(a, b):
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]`,
  "py-n-queens": `def n_queens(n):
    def place(row, cols, diag1, diag2):
        if row == n:
            return 1
        total = 0
        for col in range(n):
            if col in cols or row - col in diag1 or row + col in diag2:
                continue
            total += place(row + 1, cols | {col}, diag1 | {row - col}, diag2 | {row + col})
        return total

    return place(0, frozenset(), frozenset(), frozenset())`,
};
