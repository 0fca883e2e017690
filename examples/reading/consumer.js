#!/usr/bin/env node
// A stream-json consumer in Node.js that speaks milk-contract's reading protocol
// (docs/consumers.md, "The reading protocol"; schema: schemas/reading.schema.json).
//
// It reads a run on stdin, one JSON object per line, ignoring every line type, block type and
// member it does not know (the seed: "consumers must ignore values they don't recognize"), and
// builds the view a UI would show: each completed assistant message's text and thinking blocks
// (the assistant lines of one message.id and actor are its frames, joined),
// each tool call with its input and the first tool_result naming it, and the ending from the
// result line (is_error is the boolean contract; `result` may be absent: an interrupt). The
// partial deltas (stream_event lines) are previews of the completed blocks and are not added to
// them. When MILK_CONTRACT_READING names a file, it writes its reading there: one entry per input
// line, then the view. On stdout it prints {"is_error", "result"}; a stream that is not a whole
// run (no result line, a line after it, a line that is not JSON) is is_error null and exit 3.
//
//   milk-contract feed -- node examples/reading/consumer.js
"use strict";
const fs = require("fs");

const KNOWN_SUBTYPES = { success: false, refused: false, error_during_execution: true, error_max_turns: true,
  interrupted: true };
// the seed's line types ("open set: ignore unknown values"): a line of one is an event, another is ignored
const KNOWN = new Set(["system", "stream_event", "assistant", "user", "result"]);

function reading(rows) {
  const lines = [], messages = [], calls = [], byId = new Map();
  const current = new Map(); // each actor's (parent_tool_use_id's) last message, frames of one id joined
  let ending = null, whole = true, results = 0;
  rows.forEach((raw, i) => {
    let line;
    try { line = JSON.parse(raw); } catch (e) { line = null; }
    if (line === null || typeof line !== "object" || Array.isArray(line)) {
      whole = false;
      lines.push({ line: i + 1, did: "error" });
      return;
    }
    const kind = line.type;
    if (results) { // the result was not the last line: the run ended at it, this line is not the run's
      whole = false;
      if (kind === "result") results += 1;
      lines.push({ line: i + 1, did: "ignored" });
      return;
    }
    lines.push({ line: i + 1, did: KNOWN.has(kind) ? "event" : "ignored" });
    if (kind === "assistant" || kind === "user") {
      const message = line.message && typeof line.message === "object" ? line.message : {};
      const content = Array.isArray(message.content) ? message.content : [];
      const blocks = [];
      for (const block of content) {
        if (!block || typeof block !== "object") continue;
        const t = block.type;
        if ((t === "text" || t === "thinking") && kind === "assistant" && typeof block[t] === "string") {
          blocks.push({ type: t, text: block[t] });
        } else if (t === "tool_use") {
          const call = { id: typeof block.id === "string" ? block.id : null,
            name: typeof block.name === "string" ? block.name : null,
            input: block.input === undefined ? null : block.input, result: null, is_error: null };
          calls.push(call);
          if (call.id !== null && !byId.has(call.id)) byId.set(call.id, call);
        } else if (t === "tool_result" && byId.has(block.tool_use_id)) {
          const call = byId.get(block.tool_use_id);
          byId.delete(block.tool_use_id); // the first result naming a call is its result
          call.result = block.content === undefined ? null : block.content;
          call.is_error = typeof block.is_error === "boolean" ? block.is_error : null;
        }
      }
      if (kind === "assistant") {
        const id = typeof message.id === "string" ? message.id : null;
        const parent = line.parent_tool_use_id;
        const actor = parent === undefined || parent === null ? null : JSON.stringify(parent);
        const last = current.get(actor);
        if (id !== null && last !== undefined && last.id === id) {
          last.blocks.push(...blocks); // a frame of the actor's message: its blocks follow
        } else {
          const entry = { id, blocks };
          messages.push(entry);
          current.set(actor, entry);
        }
      }
    } else if (kind === "result") {
      results += 1;
      const isError = typeof line.is_error === "boolean" ? line.is_error : null;
      const said = Object.prototype.hasOwnProperty.call(KNOWN_SUBTYPES, line.subtype) ? KNOWN_SUBTYPES[line.subtype] : null;
      if (said !== null && isError !== null && said !== isError) whole = false;
      ending = { failed: isError, subtype: typeof line.subtype === "string" ? line.subtype : null,
        result: typeof line.result === "string" ? line.result : null,
        usage: line.usage && typeof line.usage === "object" && !Array.isArray(line.usage) ? line.usage : null };
    }
  });
  if (results !== 1) whole = false;
  if (ending !== null && !whole) ending.failed = null;
  return { lines, view: { messages, tool_calls: calls, ending } };
}

function main() {
  const chunks = [];
  process.stdin.on("data", (chunk) => chunks.push(chunk));
  process.stdin.on("end", () => {
    const text = Buffer.concat(chunks).toString("utf8");
    const rows = text.split("\n");
    if (rows.length && rows[rows.length - 1] === "") rows.pop();
    const found = reading(rows);
    const path = process.env.MILK_CONTRACT_READING;
    if (path) {
      const out = found.lines.map((entry) => JSON.stringify(entry));
      out.push(JSON.stringify({ view: found.view }));
      fs.writeFileSync(path, out.join("\n") + "\n");
    }
    const ending = found.view.ending || { failed: null, result: null };
    process.stdout.write(JSON.stringify({ is_error: ending.failed, result: ending.result }) + "\n");
    process.exitCode = ending.failed === null ? 3 : 0;
  });
}

if (require.main === module) main();
module.exports = { reading };
