// Codex check: the official ACP TypeScript SDK client runs `acpbridge serve
// codex` on the real Codex, offline against the scripted model: a text turn,
// an escalated command it allows, one it rejects, and a streaming turn it
// cancels after the first chunk.
//
// Usage: node codex.mjs URL CWD
// Prints one JSON summary line on stdout: per turn its stop reason, agent
// text, permission requests and the last status of each tool call. Exits
// non-zero on any failure.
import { client, methods } from "@agentclientprotocol/sdk";
import { drive } from "./drive.mjs";

const [url, cwd] = process.argv.slice(2);
if (!url || !cwd) {
  console.error("usage: node codex.mjs URL CWD");
  process.exit(2);
}

const summary = { turns: [] };
let turn = null;
let answer = "allow_once";
let firstChunk = null;

const app = client({ name: "acpbridge-codex" })
  .onNotification(methods.client.session.update, ({ params }) => {
    const u = params.update;
    if (!turn) {
      return;
    }
    if (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text") {
      turn.text += u.content.text;
      firstChunk?.();
    }
    if ((u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") && u.status) {
      turn.tools[u.toolCallId] = u.status;
    }
  })
  .onRequest(methods.client.session.requestPermission, ({ params }) => {
    turn.permissions++;
    const option = params.options.find((o) => o.kind === answer);
    return { outcome: { outcome: "selected", optionId: option.optionId } };
  });

const clientCapabilities = { fs: { readTextFile: false, writeTextFile: false }, terminal: false };

await drive({ app, url, name: "codex", summary, clientCapabilities, seconds: 90 }, async (agent) => {
  const { sessionId } = await agent.request(methods.agent.session.new, { cwd, mcpServers: [] });
  const prompt = async (text, onFirstChunk) => {
    turn = { prompt: text, stopReason: null, text: "", permissions: 0, tools: {} };
    summary.turns.push(turn);
    firstChunk = onFirstChunk ?? null;
    const res = await agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text }],
    });
    turn.stopReason = res.stopReason;
  };
  await prompt("say hi");
  answer = "allow_once";
  await prompt("run allowed");
  answer = "reject_once";
  await prompt("run declined");
  // The cancel's POST is awaited before the connection closes: its 202
  // may come after the prompt's answer.
  let cancelSent = null;
  await prompt("stream slowly", () => {
    cancelSent ??= Promise.resolve(agent.notify(methods.agent.session.cancel, { sessionId }));
  });
  await cancelSent;
});
