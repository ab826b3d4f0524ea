// The chat model of the examples, from the environment:
//   OPENAI_API_KEY   an OpenAI key, or
//   OPENAI_BASE_URL  any OpenAI-compatible server (vLLM, llama.cpp, Ollama's /v1), and
//   CODEGEN_MODEL    the model, e.g. "openai:gpt-4o-mini" (default) or "openai:qwen2.5-coder".
import { ChatOpenAI } from "@langchain/openai";

export function modelFromEnv(env = process.env) {
  const apiKey = env.OPENAI_API_KEY;
  const baseURL = env.OPENAI_BASE_URL;
  if (!apiKey && !baseURL) {
    console.error("Set OPENAI_API_KEY, or OPENAI_BASE_URL for an OpenAI-compatible server (and CODEGEN_MODEL for its model).");
    process.exit(1);
  }
  const model = (env.CODEGEN_MODEL ?? "openai:gpt-4o-mini").replace(/^openai:/, "");
  // A model instance (not a "provider:model" string) keeps createAgent on /v1/chat/completions.
  return new ChatOpenAI({
    model,
    apiKey: apiKey ?? "not-needed",
    temperature: 0,
    ...(baseURL ? { configuration: { baseURL } } : {}),
  });
}
