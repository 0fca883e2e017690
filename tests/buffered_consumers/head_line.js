// A head -n1 consumer in Node: its stream reader pulls 64 KiB chunks ahead; exit 0 at the first line.
const readline = require("readline");
const rl = readline.createInterface({ input: process.stdin });
rl.on("line", () => process.exit(0));
