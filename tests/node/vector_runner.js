// A vector runner in another language: reads an export of `milk-contract vectors export DIR`
// (index.json and the files) and feeds every conformant and future-compatible stream to a small
// consumer. With a FAULT (a kind of future change) the consumer dies on that one kind, as an SDK
// written without it would; without one it is correct. Prints {"failed": [ids], "fed": N}.
//
//   node vector_runner.js DIR KNOWN.json [FAULT]
//
// KNOWN.json holds the schema's known values per open set (what the consumer was written with);
// what members the goldens carry is learnt from the conformant vectors themselves.
"use strict";
const fs = require("fs");
const path = require("path");

const [dir, knownFile, fault] = process.argv.slice(2);
const known = JSON.parse(fs.readFileSync(knownFile, "utf8"));
const index = JSON.parse(fs.readFileSync(path.join(dir, "index.json"), "utf8"));
const load = (entry) => JSON.parse(fs.readFileSync(path.join(dir, entry.file), "utf8"));
const lines = (doc) => doc.stream.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const unknown = (v, set) => typeof v === "string" && !known[set].includes(v);

function blocks(line) {
  const c = isObj(line.message) ? line.message.content : null;
  return Array.isArray(c) ? c.filter(isObj) : [];
}
function* free(line) { // free-form payloads: [where, object]
  for (const k of ["extension", "_meta", "task", "tool_use_result"]) if (isObj(line[k])) yield [`${line.type}.${k}`, line[k]];
  if (isObj(line.event)) for (const k of ["extension", "_meta"]) if (isObj(line.event[k])) yield [`event.${k}`, line.event[k]];
  for (const b of blocks(line)) for (const k of ["extension", "_meta", "content"]) {
    if (isObj(b[k]) && (k !== "content" || b.type === "tool_result")) yield [`block.${b.type}.${k}`, b[k]];
  }
}
function* shapes(line) { // [place, members] of a line, its event and its blocks
  yield [`line.${line.type}.${line.subtype}`, Object.keys(line)];
  if (isObj(line.event)) yield [`event.${line.event.type}`, Object.keys(line.event)];
  for (const b of blocks(line)) yield [`block.${b.type}`, Object.keys(b)];
}
function* nodes(list) {
  for (const n of Array.isArray(list) ? list : []) if (isObj(n)) { yield n; yield* nodes(n.children); }
}
const snapshot = (l) => (l.type === "response" ? l.data : l.snapshot);
function* objects(line) { // subagent-stdio: [object, place] an optional member may join
  const s = snapshot(line);
  if (!isObj(s)) return;
  const entries = isObj(s.fleet) && Array.isArray(s.fleet.entries) ? s.fleet.entries.filter(isObj) : [];
  for (const e of entries) { yield [e, "entry"]; if (isObj(e.tokens)) yield [e.tokens, "tokens"]; }
  for (const n of nodes(s.runs)) {
    yield [n, "node"];
    for (const k of ["tokens", "outcome", "processTerminal"]) if (isObj(n[k])) yield [n[k], k === "tokens" ? "tokens" : k];
  }
}
const tag = (o) => ["status", "state", "role"].map((k) => o[k]).find((v) => typeof v === "string") ?? null;

// What the goldens carry, learnt from the conformant vectors (the consumer's closed structs).
const seen = { members: {}, shapes: {}, tagged: new Set() };
for (const entry of index.vectors) {
  if (!entry.id.includes("/conformant/")) continue;
  const doc = load(entry);
  for (const line of lines(doc)) {
    if (doc.wire === "stream-json") {
      for (const [w, o] of free(line)) (seen.members[w] ??= new Set()) && Object.keys(o).forEach((k) => seen.members[w].add(k));
      for (const [p, ms] of shapes(line)) (seen.shapes[p] ??= new Set()) && ms.forEach((k) => seen.shapes[p].add(k));
    } else {
      for (const [o, p] of objects(line)) Object.keys(o).forEach((k) => seen.tagged.add(`${p}|${tag(o)}|${k}`));
    }
  }
}

const STREAM = {
  "line-type": (l) => unknown(l.type, "line type"),
  "system-subtype": (l) => l.type === "system" && unknown(l.subtype, "system subtype"),
  "system-subtype-replaced": (l) => l.type === "system" && unknown(l.subtype, "system subtype"),
  "block-type": (l) => blocks(l).some((b) => unknown(b.type, "content block type")),
  "delta-type": (l) => isObj(l.event) && isObj(l.event.delta) && unknown(l.event.delta.type, "delta type"),
  "event-type": (l) => l.type === "stream_event" && isObj(l.event) && unknown(l.event.type, "stream payload type"),
  "result-subtype": (l) => l.type === "result" && unknown(l.subtype, "result subtype"),
  "stop-reason": (l) => l.type === "result" && unknown(l.stop_reason, "stop_reason"),
  "capability": (l) => l.type === "system" && Array.isArray(l.capabilities) && l.capabilities.some((c) => unknown(c, "capability")),
  "role-label": (l) => (l.type === "assistant" || l.type === "user") && unknown(l.agent, "role label"),
  "payload-member": (l) => [...free(l)].some(([w, o]) => Object.keys(o).some((k) => !(seen.members[w] ?? new Set()).has(k))),
  "optional-member": (l) => [...shapes(l)].some(([p, ms]) => seen.shapes[p] && ms.some((k) => !seen.shapes[p].has(k))),
};

function clientDies(all) {
  const host = all.filter((l) => l.type === "response" || l.type === "subagent_event");
  if (fault === "client-optional-member") {
    return host.some((l) => [...objects(l)].some(([o, p]) => Object.keys(o).some((k) => !seen.tagged.has(`${p}|${tag(o)}|${k}`))));
  }
  if (fault === "unasked-event") { // it diffs each event against the event before and asserts a change
    const same = (a, b) => JSON.stringify({ ...a, revision: null }) === JSON.stringify({ ...b, revision: null });
    return host.some((l, i) => i > 0 && l.type === "subagent_event" && host[i - 1].type === "subagent_event"
      && isObj(snapshot(l)) && isObj(snapshot(host[i - 1])) && same(snapshot(host[i - 1]), snapshot(l)));
  }
  return false;
}

function consume(doc) { // throws where the faulty consumer would die; otherwise reads the run
  const all = lines(doc);
  if (doc.wire === "stream-json") {
    const dies = STREAM[fault];
    for (const line of all) if (dies && dies(line)) throw new Error(`${fault}: not written for it`);
    if (!all.some((l) => l.type === "result")) throw new Error("no result line");
  } else if (clientDies(all)) {
    throw new Error(`${fault}: not written for it`);
  }
}

const failed = [];
let fed = 0;
for (const entry of index.vectors) {
  if (!/\/(conformant|future-compatible)\//.test(entry.id)) continue;
  fed += 1;
  try { consume(load(entry)); } catch (e) { failed.push(entry.id); }
}
process.stdout.write(JSON.stringify({ failed, fed }) + "\n");
