/** The tests' wheel builder lives beside the bench's package index fixture, which uses it too. */
export { wheel, zip } from "../../../bench/fixtures/wheel-builder.js";
