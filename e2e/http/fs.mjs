// Editor file access check: the official ACP TypeScript SDK client
// advertises fs.readTextFile and fs.writeTextFile and runs one prompt
// against `acpbridge serve claude` whose model writes, edits and reads
// files. It keeps the files it is given as unsaved buffers, answers reads
// from them (else from the disk), takes writes into them without touching
// the disk, allows every permission once, and prints a JSON summary.
//
// Usage: node fs.mjs URL CWD PROMPT BUFFERS_JSON
// Prints one JSON summary line on stdout; exits non-zero on any failure.
import { readFile } from "node:fs/promises";
import { client, methods } from "@agentclientprotocol/sdk";
import { drive } from "./drive.mjs";

const [url, cwd, prompt, buffersJSON] = process.argv.slice(2);
if (!url || !cwd || !prompt || !buffersJSON) {
  console.error("usage: node fs.mjs URL CWD PROMPT BUFFERS_JSON");
  process.exit(2);
}

const buffers = JSON.parse(buffersJSON);
const summary = { reads: [], writes: [], toolStatus: {}, stopReason: null };

const app = client({ name: "acpbridge-fs" })
  .onNotification(methods.client.session.update, ({ params }) => {
    const u = params.update;
    if ((u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") && u.status) {
      summary.toolStatus[u.toolCallId] = u.status;
    }
  })
  .onRequest(methods.client.session.requestPermission, ({ params }) => {
    const allow = params.options.find((o) => o.kind === "allow_once");
    return { outcome: { outcome: "selected", optionId: allow.optionId } };
  })
  .onRequest(methods.client.fs.readTextFile, async ({ params }) => {
    summary.reads.push(params.path);
    if (params.path in buffers) {
      return { content: buffers[params.path] };
    }
    return { content: await readFile(params.path, "utf8") };
  })
  .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
    summary.writes.push({ path: params.path, content: params.content });
    buffers[params.path] = params.content;
    return {};
  });

const clientCapabilities = { fs: { readTextFile: true, writeTextFile: true }, terminal: false };

await drive({ app, url, name: "fs", summary, clientCapabilities, seconds: 60 }, async (agent) => {
  const session = await agent.request(methods.agent.session.new, { cwd, mcpServers: [] });
  const result = await agent.request(methods.agent.session.prompt, {
    sessionId: session.sessionId,
    prompt: [{ type: "text", text: prompt }],
  });
  summary.stopReason = result.stopReason;
});
