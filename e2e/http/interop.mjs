// Interop check: the official ACP TypeScript SDK's Streamable HTTP client
// (@agentclientprotocol/sdk, experimental/http-client) runs a whole session
// against `acpbridge serve replay FIXTURE`: initialize, session/new, a prompt
// whose permission requests are answered (by POST, on the session's
// stream), a cancel while idle, then session/close, and the connection is
// ended with DELETE when the client closes.
//
// Usage: node interop.mjs URL [PROMPT]
// URL is the bridge's /acp endpoint; ACPBRIDGE_TOKEN, when set, is sent as
// a bearer token. Prints one JSON summary line on stdout; exits non-zero on
// any failure.
import { client, methods } from "@agentclientprotocol/sdk";
import { drive } from "./drive.mjs";

const [url, prompt = "Hello from the TypeScript SDK."] = process.argv.slice(2);
if (!url) {
  console.error("usage: node interop.mjs URL [PROMPT]");
  process.exit(2);
}
const token = process.env.ACPBRIDGE_TOKEN;
const headers = token ? { Authorization: `Bearer ${token}` } : {};

const summary = {
  agent: null,
  protocolVersion: null,
  sessionId: null,
  updates: {},
  foreignUpdates: 0,
  permissions: 0,
  stopReason: null,
  closed: false,
};

const app = client({ name: "acpbridge-interop" })
  .onNotification(methods.client.session.update, ({ params }) => {
    if (params.sessionId !== summary.sessionId) {
      summary.foreignUpdates++;
    }
    const kind = params.update.sessionUpdate;
    summary.updates[kind] = (summary.updates[kind] ?? 0) + 1;
  })
  .onRequest(methods.client.session.requestPermission, ({ params }) => {
    summary.permissions++;
    const allow = params.options.find((o) => o.kind === "allow_once") ?? params.options[0];
    return { outcome: { outcome: "selected", optionId: allow.optionId } };
  });

const clientCapabilities = { fs: { readTextFile: false, writeTextFile: false }, terminal: false };

await drive({ app, url, name: "interop", summary, clientCapabilities, headers, seconds: 30 }, async (agent, init) => {
  summary.agent = init.agentInfo?.name ?? null;
  summary.protocolVersion = init.protocolVersion;
  const session = await agent.request(methods.agent.session.new, {
    cwd: "/home/user/project",
    mcpServers: [],
  });
  summary.sessionId = session.sessionId;
  const result = await agent.request(methods.agent.session.prompt, {
    sessionId: session.sessionId,
    prompt: [{ type: "text", text: prompt }],
  });
  summary.stopReason = result.stopReason;
  await agent.notify(methods.agent.session.cancel, { sessionId: session.sessionId });
  if (init.agentCapabilities?.sessionCapabilities?.close) {
    await agent.request(methods.agent.session.close, { sessionId: session.sessionId });
    summary.closed = true;
  }
});
