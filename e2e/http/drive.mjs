// drive is what every e2e client script does around its own steps: connect
// to the bridge at url over Streamable HTTP (the SDK's HTTP client),
// initialize as client "acpbridge-NAME" with clientCapabilities, run
// body(agent, initializeResult), and print summary as one JSON line on
// stdout. On a failure, or when seconds pass first, it prints the reason
// and the summary so far on stderr and exits 1.
import { methods } from "@agentclientprotocol/sdk";
import { createHttpStream } from "@agentclientprotocol/sdk/experimental/http-client";

export async function drive({ app, url, name, summary, clientCapabilities, headers, seconds }, body) {
  const timer = setTimeout(() => {
    console.error(`${name}: timed out after ${seconds}s`, JSON.stringify(summary));
    process.exit(1);
  }, seconds * 1000);
  try {
    await app.connectWith(createHttpStream(url, headers ? { headers } : undefined), async (agent) => {
      const init = await agent.request(methods.agent.initialize, {
        protocolVersion: 1,
        clientCapabilities,
        clientInfo: { name: `acpbridge-${name}`, version: "1" },
      });
      await body(agent, init);
    });
  } catch (err) {
    console.error(`${name}: failed:`, err?.stack ?? err, JSON.stringify(summary));
    process.exit(1);
  }
  clearTimeout(timer);
  console.log(JSON.stringify(summary));
}
