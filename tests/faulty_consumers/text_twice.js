// A Node.js stream-json consumer that speaks the reading protocol, exits 0, and keeps a streamed
// block's text twice: it appends each text/thinking delta to the block's buffer, as a streaming UI
// does, and then appends the completed assistant line's block to the same buffer (sesori-ai#1045,
// langgenius/mosoo-agent-driver#52: text duplicated when one message arrives as several frames).
// `milk-contract feed` names it: consumer.text-duplicated (tests/consumers/test_reading.py).
"use strict";
const fs = require("fs");

const chunks = [];
process.stdin.on("data", (c) => chunks.push(c));
process.stdin.on("end", () => {
  const rows = Buffer.concat(chunks).toString("utf8").split("\n").filter((r) => r.trim());
  const messages = [], calls = [], lines = [];
  let buffers = {}, ending = null;
  rows.forEach((raw, i) => {
    const line = JSON.parse(raw);
    lines.push({ line: i + 1, did: "event" });
    if (line.type === "stream_event" && line.event.type === "content_block_delta") {
      const d = line.event.delta;
      buffers[line.event.index] = (buffers[line.event.index] || "") + (d.text || d.thinking || "");
    } else if (line.type === "assistant") {
      const blocks = [];
      line.message.content.forEach((b, index) => {
        if (b.type === "text" || b.type === "thinking") {
          blocks.push({ type: b.type, text: (buffers[index] || "") + b[b.type] }); // the fault
        } else if (b.type === "tool_use") {
          calls.push({ id: b.id, name: b.name, input: b.input, result: null, is_error: null });
        }
      });
      messages.push({ id: line.message.id, blocks });
      buffers = {};
    } else if (line.type === "user") {
      for (const b of line.message.content) {
        const call = calls.find((c) => c.id === b.tool_use_id && c.result === null);
        if (b.type === "tool_result" && call) {
          call.result = b.content;
          call.is_error = typeof b.is_error === "boolean" ? b.is_error : null;
        }
      }
    } else if (line.type === "result") {
      ending = { failed: line.is_error, subtype: line.subtype, result: line.result === undefined ? null : line.result,
        usage: line.usage || null };
    }
  });
  const out = lines.map((e) => JSON.stringify(e));
  out.push(JSON.stringify({ view: { messages, tool_calls: calls, ending } }));
  if (process.env.MILK_CONTRACT_READING) fs.writeFileSync(process.env.MILK_CONTRACT_READING, out.join("\n") + "\n");
  process.stdout.write(JSON.stringify({ is_error: ending && ending.failed }) + "\n");
});
