import { describe, expect, it } from "vitest";
import { inferLanguage } from "../../src/graph/infer-language.js";

describe("solve: the language the task names", () => {
  it("reads the language from the task's words", () => {
    expect(inferLanguage("Write a python program that prints the primes below 30")).toEqual({ language: "python", words: "a python program" });
    expect(inferLanguage("Sort a list in TypeScript")).toEqual({ language: "typescript", words: "in TypeScript" });
    expect(inferLanguage("Using Node.js, print the date")).toEqual({ language: "javascript", words: "Using Node.js" });
    expect(inferLanguage("Write a JS function that reverses a string")).toEqual({ language: "javascript", words: "a JS function" });
    expect(inferLanguage("Print the factorial of 10")).toBeUndefined();
  });

  it("with several languages, the target wins; short names count only as language names", () => {
    expect(inferLanguage("Port this Python snippet to JavaScript: print(sum(range(10)))")).toEqual({ language: "javascript", words: "to JavaScript" });
    expect(inferLanguage("Read the file data.py and count its lines")).toBeUndefined();
    expect(inferLanguage("Print the types (ts) of each value")).toBeUndefined();
    expect(inferLanguage("Write a function that deletes a node from a binary tree")).toBeUndefined();
  });
});
