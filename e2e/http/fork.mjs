// Fork check: the official ACP TypeScript SDK client forks a session of
// `acpbridge serve claude` on the real CLI, offline against the scripted
// model (unstable session/fork). After a first turn it forks an unknown
// id (which must fail), then the session; it runs a turn on the fork, then
// one on the original, and lists the sessions.
//
// Usage: node fork.mjs URL CWD FIRST ON_FORK ON_ORIGINAL
// Prints one JSON summary line on stdout: whether initialize advertised
// sessionCapabilities.fork, the error code of the unknown fork, both
// session ids, the agent text and stop reason of the turn on the fork and
// of the one on the original, and the ids session/list gave. Exits
// non-zero on any failure.
import { client, methods } from "@agentclientprotocol/sdk";
import { drive } from "./drive.mjs";

const [url, cwd, first, onFork, onOriginal] = process.argv.slice(2);
if (!url || !cwd || !first || !onFork || !onOriginal) {
  console.error("usage: node fork.mjs URL CWD FIRST ON_FORK ON_ORIGINAL");
  process.exit(2);
}

// Unstable: not among the SDK's method names, so asked by name, as the
// SDK's untyped request for any method.
const fork = "session/fork";
const summary = { advertised: false, unknownCode: null, sessionId: "", forkId: "", turns: {}, listed: [] };
let text = ""; // agent text of the turn running

const app = client({ name: "acpbridge-fork" }).onNotification(methods.client.session.update, ({ params }) => {
  const u = params.update;
  if (u.sessionUpdate === "agent_message_chunk" && u.content?.type === "text") {
    text += u.content.text;
  }
});

const clientCapabilities = { fs: { readTextFile: false, writeTextFile: false }, terminal: false };

await drive({ app, url, name: "fork", summary, clientCapabilities, seconds: 120 }, async (agent, init) => {
  summary.advertised = init.agentCapabilities?.sessionCapabilities?.fork != null;
  const turn = async (name, sessionId, prompt) => {
    text = "";
    const res = await agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: prompt }] });
    summary.turns[name] = { text, stopReason: res.stopReason };
  };
  const { sessionId } = await agent.request(methods.agent.session.new, { cwd, mcpServers: [] });
  summary.sessionId = sessionId;
  await turn("first", sessionId, first);
  try {
    await agent.request(fork, { sessionId: "00000000-0000-4000-8000-000000000000", cwd, mcpServers: [] });
  } catch (err) {
    summary.unknownCode = err?.code ?? String(err);
  }
  const forked = await agent.request(fork, { sessionId, cwd, mcpServers: [] });
  summary.forkId = forked.sessionId;
  await turn("fork", forked.sessionId, onFork);
  await turn("original", sessionId, onOriginal);
  const list = await agent.request(methods.agent.session.list, { cwd });
  summary.listed = list.sessions.map((s) => s.sessionId);
});
