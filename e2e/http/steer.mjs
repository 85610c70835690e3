// Steering check: the official ACP TypeScript SDK client steers a running
// turn of `acpbridge serve claude` on the real CLI, offline against the
// scripted model. It sends a prompt and, at the first agent text, the
// extension request _session/steering with the steering message (the
// SDK's untyped request, as for any extension method); then, with no turn
// running, a steering message with idleBehavior "promptRequired", which
// must run nothing.
//
// Usage: node steer.mjs URL CWD PROMPT STEER_TEXT
// Prints one JSON summary line on stdout: whether initialize advertised
// steering, the events of the steered turn in arrival order ("text", the
// steering answer, the prompt's answer), the agent text that came before
// the prompt's answer, and the idle steering answer. Exits non-zero on any
// failure.
import { client, methods } from "@agentclientprotocol/sdk";
import { drive } from "./drive.mjs";

const [url, cwd, prompt, steerText] = process.argv.slice(2);
if (!url || !cwd || !prompt || !steerText) {
  console.error("usage: node steer.mjs URL CWD PROMPT STEER_TEXT");
  process.exit(2);
}

const steering = "_session/steering";
const summary = { advertised: false, events: [], textBefore: "", idle: null };
let answered = false; // the steered prompt's answer arrived
let onText = null; // called at the first agent text

const app = client({ name: "acpbridge-steer" }).onNotification(methods.client.session.update, ({ params }) => {
  const u = params.update;
  if (u.sessionUpdate !== "agent_message_chunk" || u.content?.type !== "text" || !u.content.text || answered) {
    return;
  }
  summary.textBefore += u.content.text;
  if (summary.events.at(-1) !== "text") {
    summary.events.push("text");
  }
  const f = onText;
  onText = null;
  f?.();
});

const clientCapabilities = { fs: { readTextFile: false, writeTextFile: false }, terminal: false };

await drive({ app, url, name: "steer", summary, clientCapabilities, seconds: 90 }, async (agent, init) => {
  summary.advertised = init._meta?.steering?.supported === true;
  const { sessionId } = await agent.request(methods.agent.session.new, { cwd, mcpServers: [] });
  let steered = null;
  onText = () => {
    steered = agent
      .request(steering, { sessionId, prompt: [{ type: "text", text: steerText }] })
      .then((res) => summary.events.push(`steering:${res.outcome}`));
  };
  const res = await agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: prompt }],
  });
  answered = true;
  summary.events.push(`prompt:${res.stopReason}`);
  await steered;
  summary.idle = await agent.request(steering, {
    sessionId,
    prompt: [{ type: "text", text: "Only if a turn runs." }],
    _meta: { steering: { idleBehavior: "promptRequired" } },
  });
});
