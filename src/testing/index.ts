/**
 * Test helpers for users of codegen-sandbox (`codegen-sandbox/testing`): a scripted
 * OpenAI-compatible server to run the graph and tools offline against the real `ChatOpenAI`.
 */
export * from "./openai-compatible-server.js";
