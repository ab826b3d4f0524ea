import { describe, expect, it } from "vitest";
import { DEMO_TASKS } from "../../src/cli/demo.js";

const [factorial, squares, frequency, fibonacci] = DEMO_TASKS;

describe("demo: a task is solved only when its known answer is in the output", () => {
  it("finds the answers in the ways programs print them", () => {
    expect(factorial!.answered("The factorial of 10 is: 3628800\n")).toBe(true);
    expect(factorial!.answered("36288000\n")).toBe(false);
    expect(factorial!.answered("")).toBe(false);
    expect(squares!.answered("1540\n")).toBe(true);
    for (const shown of [
      "h: 1\ne: 1\nl: 3\no: 2\n : 1\nw: 1\nr: 1\nd: 1\n",
      "{'h': 1, 'e': 1, 'l': 3, 'o': 2, ' ': 1, 'w': 1, 'r': 1, 'd': 1}\n",
      "Map(8) { 'h' => 1, 'e' => 1, 'l' => 3, 'o' => 2, ' ' => 1, 'w' => 1, 'r' => 1, 'd' => 1 }\n",
      '{"h":1,"e":1,"l":3,"o":2," ":1,"w":1,"r":1,"d":1}',
      "Character 'h' appears 1 times\nCharacter 'e' appears 1 times\nCharacter 'l' appears 3 times\nCharacter 'o' appears 2 times\nCharacter 'w' appears 1 times\nCharacter 'r' appears 1 times\nCharacter 'd' appears 1 times\n",
    ]) {
      expect(frequency!.answered(shown), shown).toBe(true);
    }
    expect(frequency!.answered("h: 1\ne: 1\nl: 2\no: 2\nw: 1\nr: 1\nd: 1\n")).toBe(false);
    expect(frequency!.answered("l: 2\no: 3\nh: 1\ne: 1\nw: 1\nr: 1\nd: 1\n")).toBe(false);
    expect(fibonacci!.answered("0 1 1 2 3 5 8 13 21 34 55 89 144 233 377\n")).toBe(true);
    expect(fibonacci!.answered("[1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610]\n")).toBe(true);
    expect(fibonacci!.answered("0\n1\n1\n2\n3\n5\n8\n13\n21\n34\n55\n89\n144\n233\n")).toBe(false);
  });
});
