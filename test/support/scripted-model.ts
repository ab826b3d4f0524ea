/**
 * The one place where tests build scripted chat models. Every model here is real LangChain code
 * driven by a script: `FakeListChatModel` for plain replies, `fakeModel()` (re-exported) for tool
 * calls, and the real `ChatOpenAI` client pointed at `startScriptedOpenAIServer` on 127.0.0.1.
 */
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { ChatOpenAI, type ChatOpenAIFields } from "@langchain/openai";

export { fakeModel } from "@langchain/core/testing";

/** A Markdown code fence, the way models answer: "```lang\ncode\n```". */
export function fence(language: string, code: string): string {
  return "```" + language + "\n" + code + "\n```";
}

/** A chat model that answers with the given replies in order (plain text, no tool calls). */
export function scriptedModel(...replies: string[]): FakeListChatModel {
  return new FakeListChatModel({ responses: replies });
}

/**
 * The real `ChatOpenAI` client talking to a scripted OpenAI-compatible server (`baseURL` from
 * `startScriptedOpenAIServer`). No retries unless `fields` asks for them, so a scripted error
 * surfaces at once.
 */
export function scriptedOpenAIModel(baseURL: string, fields: ChatOpenAIFields = {}): ChatOpenAI {
  return new ChatOpenAI({ model: "scripted-model", apiKey: "test", maxRetries: 0, ...fields, configuration: { baseURL, ...fields.configuration } });
}


/**
 * Callbacks that record the last user message of every model call (what the model was told),
 * for assertions on generate and refine prompts.
 */
export function promptRecorder() {
  const prompts: string[] = [];
  const callbacks = [
    {
      handleChatModelStart(_llm: unknown, messages: { content: unknown }[][]) {
        prompts.push(String(messages[0]!.at(-1)?.content));
      },
    },
  ];
  return { prompts, callbacks };
}
