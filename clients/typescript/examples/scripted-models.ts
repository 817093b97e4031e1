// The frameworks' own stand-ins for a model, scripted to call one tool once and then answer in text: what the
// examples and the tests run instead of a model service. Replace them with a real model (e.g. `openai("gpt-...")`,
// `new ChatOpenAI(...)`, an Agent's model name) and nothing else changes.
import { AIMessageChunk } from "@langchain/core/messages";
import { FakeStreamingChatModel } from "@langchain/core/utils/testing";
import { Usage, type Model, type ModelRequest, type ModelResponse } from "@openai/agents";
import { MockLanguageModelV3 } from "ai/test";

/** One tool call as a model would emit it: the framework's call id, the tool and its arguments. */
export interface ScriptedCall {
  callId: string;
  tool: string;
  args: Record<string, unknown>;
}

const AI_SDK_USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** The Vercel AI SDK's mock model (`ai/test`): the call first, then `text`. */
export function aiSdkModel(call: ScriptedCall, text = "Done."): MockLanguageModelV3 {
  let turns = 0;
  return new MockLanguageModelV3({
    doGenerate: async () => turns++ === 0
      ? { content: [{ type: "tool-call", toolCallId: call.callId, toolName: call.tool, input: JSON.stringify(call.args) }],
        finishReason: { unified: "tool-calls", raw: undefined }, usage: AI_SDK_USAGE, warnings: [] }
      : { content: [{ type: "text", text }], finishReason: { unified: "stop", raw: undefined }, usage: AI_SDK_USAGE,
        warnings: [] },
  });
}

/** An OpenAI Agents SDK `Model` (the interface custom model providers implement): the call first, then `text`. */
export class AgentsScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];

  constructor(private readonly call: ScriptedCall, private readonly text = "Done.") {
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const output: ModelResponse["output"] = this.requests.length === 1
      ? [{ type: "function_call", callId: this.call.callId, name: this.call.tool,
        arguments: JSON.stringify(this.call.args), status: "completed" }]
      : [{ type: "message", role: "assistant", status: "completed",
        content: [{ type: "output_text", text: this.text }] }];
    return { usage: new Usage(), output, responseId: `scripted-${this.requests.length}` };
  }

  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("the scripted model does not stream; run the agent without stream: true");
  }
}

/** LangChain's fake chat model (`@langchain/core/utils/testing`), answering with the call. */
export function langGraphModel(call: ScriptedCall): FakeStreamingChatModel {
  return new FakeStreamingChatModel({
    sleep: 0,
    chunks: [new AIMessageChunk({ content: "", tool_calls: [{ id: call.callId, name: call.tool, args: call.args,
      type: "tool_call" }] })],
  });
}
