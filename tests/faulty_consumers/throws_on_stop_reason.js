// A stream-json consumer in Node that throws when it reaches the result line, as a hand-written
// SDK with a closed list of stop reasons might: Node prints the thrown Error and its stack on
// stderr and ends with its own version line ("Node.js v20…"), so a finding that quoted the last
// line alone said nothing of why. tests/consumers/test_stderr_tail.py feeds it the goldens.
"use strict";
const readline = require("readline");
const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (text) => {
  const line = JSON.parse(text);
  if (line.type === "result") {
    throw new Error("unknown stop_reason error");
  }
});
