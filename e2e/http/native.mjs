// Native-agent check: the official ACP TypeScript SDK's Streamable HTTP
// client runs the core of an editor session against `acpbridge serve NAME`
// for a native-ACP CLI (gemini, qwen, opencode, copilot): a text turn, a
// turn whose shell command it allows, and a slow turn it cancels as soon as
// text streams. It prints, per turn, the stop reason (or error) and every
// session/update and session/request_permission it got, in arrival order,
// so the Go test can make the same assertions it makes on stdio.
//
// Usage: node native.mjs URL CWD HELLO_PROMPT ALLOW_PROMPT SLOW_PROMPT
// Prints one JSON summary line on stdout; exits non-zero on any failure.
import { client, methods } from "@agentclientprotocol/sdk";
import { drive } from "./drive.mjs";

const [url, cwd, hello, allow, slow] = process.argv.slice(2);
if (!url || !cwd || !hello || !allow || !slow) {
  console.error("usage: node native.mjs URL CWD HELLO_PROMPT ALLOW_PROMPT SLOW_PROMPT");
  process.exit(2);
}

const summary = { agent: null, sessionId: null, turns: [] };
let current = null; // the turn under way: { prompt, frames, stopReason, error, cancelMs }
let onText = null; // called at the current turn's first agent text

const app = client({ name: "acpbridge-native" })
  .onNotification(methods.client.session.update, ({ params }) => {
    current?.frames.push({ method: "session/update", params });
    const u = params.update;
    if (u.sessionUpdate === "agent_message_chunk" && u.content?.type === "text" && u.content.text && onText) {
      const f = onText;
      onText = null;
      f();
    }
  })
  .onRequest(methods.client.session.requestPermission, ({ params }) => {
    current?.frames.push({ method: "session/request_permission", params });
    const option = params.options.find((o) => o.kind === "allow_once");
    if (!option) {
      return { outcome: { outcome: "cancelled" } };
    }
    return { outcome: { outcome: "selected", optionId: option.optionId } };
  });

// run sends one prompt; cancel, when set, sends session/cancel at the
// turn's first agent text.
async function run(agent, sessionId, prompt, cancel) {
  current = { prompt, frames: [], stopReason: null, error: null, cancelMs: null };
  summary.turns.push(current);
  // The cancel's own POST may still be under way when the prompt's answer
  // arrives on the stream; it is awaited below, so that closing the
  // connection does not abort it.
  let cancelSent = null;
  if (cancel) {
    onText = () => {
      current.cancelStart = Date.now();
      cancelSent = Promise.resolve(agent.notify(methods.agent.session.cancel, { sessionId })).catch((err) => {
        current.cancelError = String(err?.message ?? err);
      });
    };
  }
  try {
    const result = await agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: prompt }],
    });
    current.stopReason = result.stopReason;
  } catch (err) {
    current.error = String(err?.message ?? err);
  }
  await cancelSent;
  if (current.cancelStart) {
    current.cancelMs = Date.now() - current.cancelStart;
    delete current.cancelStart;
  }
  onText = null;
}

const clientCapabilities = { fs: { readTextFile: false, writeTextFile: false }, terminal: false };

await drive({ app, url, name: "native", summary, clientCapabilities, seconds: 120 }, async (agent, init) => {
  summary.agent = init.agentInfo?.name ?? null;
  const session = await agent.request(methods.agent.session.new, { cwd, mcpServers: [] });
  summary.sessionId = session.sessionId;
  await run(agent, session.sessionId, hello, false);
  await run(agent, session.sessionId, allow, false);
  await run(agent, session.sessionId, slow, true);
});
