// Live shell output check: the official ACP TypeScript SDK client
// advertises terminal output (clientCapabilities._meta.terminal_output) and
// runs one prompt against `acpbridge serve claude` whose model runs a slow
// Bash command. It allows every permission once and prints a JSON summary:
// every _meta.terminal_output chunk in arrival order, with whether its tool
// call had completed by then.
//
// Usage: node live.mjs URL CWD PROMPT
// Prints one JSON summary line on stdout; exits non-zero on any failure.
import { client, methods } from "@agentclientprotocol/sdk";
import { drive } from "./drive.mjs";

const [url, cwd, prompt] = process.argv.slice(2);
if (!url || !cwd || !prompt) {
  console.error("usage: node live.mjs URL CWD PROMPT");
  process.exit(2);
}

const summary = { chunks: [], toolStatus: {}, stopReason: null };

const app = client({ name: "acpbridge-live" })
  .onNotification(methods.client.session.update, ({ params }) => {
    const u = params.update;
    if (u.sessionUpdate !== "tool_call" && u.sessionUpdate !== "tool_call_update") {
      return;
    }
    const out = u._meta?.terminal_output;
    if (out) {
      summary.chunks.push({
        toolCallId: u.toolCallId,
        terminalId: out.terminal_id,
        data: out.data,
        afterCompletion: summary.toolStatus[u.toolCallId] === "completed",
      });
    }
    if (u.status) {
      summary.toolStatus[u.toolCallId] = u.status;
    }
  })
  .onRequest(methods.client.session.requestPermission, ({ params }) => {
    const allow = params.options.find((o) => o.kind === "allow_once");
    return { outcome: { outcome: "selected", optionId: allow.optionId } };
  });

const clientCapabilities = {
  fs: { readTextFile: false, writeTextFile: false },
  terminal: false,
  _meta: { terminal_output: true },
};

await drive({ app, url, name: "live", summary, clientCapabilities, seconds: 60 }, async (agent) => {
  const session = await agent.request(methods.agent.session.new, { cwd, mcpServers: [] });
  const result = await agent.request(methods.agent.session.prompt, {
    sessionId: session.sessionId,
    prompt: [{ type: "text", text: prompt }],
  });
  summary.stopReason = result.stopReason;
});
