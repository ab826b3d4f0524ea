import { describe, expect, it } from "vitest";
import { outputRequest, pythonRepr, shownOutput } from "../../src/graph/shown-output.js";

describe("shownOutput: a result as its language prints it", () => {
  it("shows a Python value the way print() does, a JavaScript value as JSON, a string as it is", () => {
    expect(shownOutput({ stdout: "", result: { a: 1 }, language: "python" })).toBe("{'a': 1}");
    expect(shownOutput({ stdout: "", result: { a: 1 }, language: "javascript" })).toBe('{"a":1}');
    expect(shownOutput({ stdout: "", result: "hello", language: "python" })).toBe("hello");
    expect(shownOutput({ stdout: "printed\n", result: 5, language: "python" })).toBe("printed\n");
  });

  it("writes Python's repr: True/False/None, quotes, escapes, floats", () => {
    expect(pythonRepr([true, false, null, 1, 2.5, "it's", 'say "hi"', "a\nb", "\\"])).toBe(`[True, False, None, 1, 2.5, "it's", 'say "hi"', 'a\\nb', '\\\\']`);
    expect(pythonRepr({ "k": [1e-7, 1.5e20, 1e16, 0.1] })).toBe("{'k': [1e-07, 1.5e+20, 1e+16, 0.1]}");
    expect(pythonRepr("it's \"both\"")).toBe(`'it\\'s "both"'`);
  });
});

describe("outputRequest: the words of a task that ask for output", () => {
  it("finds print and value words, but a task that asks for a function is done by defining it", () => {
    expect(outputRequest("Calculate the factorial of 10 and print the result.")).toBe("Calculate the factorial of 10 and print the result");
    expect(outputRequest("What is 2**100?")).toBe("What is 2**100?");
    expect(outputRequest("Compute the 10th Fibonacci number")).toBe("Compute the 10th Fibonacci number");
    expect(outputRequest("Write a function add(a, b) that returns the sum.")).toBeUndefined();
    expect(outputRequest("Write isPrime(n) as a function. Then show the primes below 30.")).toBe("Then show the primes below 30");
    expect(outputRequest("Implement a Stack class.")).toBeUndefined();
  });
});
