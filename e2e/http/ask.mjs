// Elicitation check: the official ACP TypeScript SDK client advertises form
// elicitation and terminal output (_meta.terminal_output), and runs one
// prompt against `acpbridge serve claude` whose model asks questions with
// AskUserQuestion. It answers the form with the first option of every field
// and prints a JSON summary of the forms it got and the tool calls it saw.
//
// Usage: node ask.mjs URL CWD PROMPT
// Prints one JSON summary line on stdout; exits non-zero on any failure.
import { client, methods } from "@agentclientprotocol/sdk";
import { drive } from "./drive.mjs";

const [url, cwd, prompt] = process.argv.slice(2);
if (!url || !cwd || !prompt) {
  console.error("usage: node ask.mjs URL CWD PROMPT");
  process.exit(2);
}

const summary = { forms: [], answers: {}, toolStatus: {}, stopReason: null };

const app = client({ name: "acpbridge-ask" })
  .onNotification(methods.client.session.update, ({ params }) => {
    const u = params.update;
    if ((u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") && u.status) {
      summary.toolStatus[u.toolCallId] = u.status;
    }
  })
  .onRequest(methods.client.elicitation.create, ({ params }) => {
    const fields = {};
    const content = {};
    for (const [name, p] of Object.entries(params.requestedSchema.properties)) {
      fields[name] = p.type;
      const first = p.type === "array" ? p.items.anyOf[0].const : p.oneOf[0].const;
      content[name] = p.type === "array" ? [first] : first;
    }
    summary.forms.push({ mode: params.mode, sessionId: params.sessionId, toolCallId: params.toolCallId, fields });
    summary.answers = content;
    return { action: "accept", content };
  });

const clientCapabilities = {
  fs: { readTextFile: false, writeTextFile: false },
  terminal: false,
  elicitation: { form: {} },
  _meta: { terminal_output: true },
};

await drive({ app, url, name: "ask", summary, clientCapabilities, seconds: 60 }, async (agent) => {
  const session = await agent.request(methods.agent.session.new, { cwd, mcpServers: [] });
  const result = await agent.request(methods.agent.session.prompt, {
    sessionId: session.sessionId,
    prompt: [{ type: "text", text: prompt }],
  });
  summary.stopReason = result.stopReason;
});
