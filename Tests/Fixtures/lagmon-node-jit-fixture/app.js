// A Node.js program that stalls its loop in crypto.pbkdf2Sync, called from deriveKey: lagmon's
// JIT perf map tests expect deriveKey (app.js, the line of its `function` keyword) as culprit.
//
//   node app.js        // 5 ticks of 20 ms, 600 ms (at least) of key derivation in one tick, 5 more
//   node app.js wait   // the same after a line on stdin (for attach), having printed "waiting"
//
// Lines on stdout say what happened: the pid, the NODE_OPTIONS it got, "stalling", "done".
"use strict";
const crypto = require("crypto");

function deriveKey(password) {
  return crypto.pbkdf2Sync(password, "lagmon-salt", 20000, 32, "sha256");
}

console.log("pid=" + process.pid);
console.log("node_options=" + (process.env.NODE_OPTIONS || ""));
function run() {
  let ticks = 0;
  const timer = setInterval(() => {
    ticks += 1;
    if (ticks === 5) {
      console.log("stalling");
      const until = Date.now() + 600;
      let keys = 0;
      while (Date.now() < until) {
        deriveKey("password" + keys);
        keys += 1;
      }
    }
    if (ticks === 10) {
      clearInterval(timer);
      console.log("done");
    }
  }, 20);
}

if (process.argv[2] === "wait") {
  // Compiled before the wait, so the perf map names it by the time the stall is sampled.
  deriveKey("warm-up");
  console.log("waiting");
  process.stdin.once("data", () => {
    // Closed, not paused: a paused stdin would keep node running after the last tick.
    process.stdin.destroy();
    run();
  });
} else {
  run();
}
