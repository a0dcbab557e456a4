// A Node.js program for lagmon's wait-call probe tests.
//
//   node lagmon-node-fixture.js stall   // 5 ticks of 20 ms, 250 ms of synchronous work in a
//                                       // timer callback, 5 more ticks
//   node lagmon-node-fixture.js idle    // 25 ticks of 20 ms, nothing else
//   node lagmon-node-fixture.js files FILE
//                                       // ticks 6-10 each read this script with
//                                       // fs.readFileSync and write it to FILE with
//                                       // fs.writeFileSync on the loop thread (StrictMode
//                                       // counts them); prints `sync-files N`, then deletes FILE
//
// Lines on stdout say what happened; the timing comes from libuv's own timers.
"use strict";

function spinFor250msInNodeLoop() {
  const until = Date.now() + 250;
  let spins = 0;
  while (Date.now() < until) spins += 1;
  return spins;
}

const mode = process.argv[2] || "stall";
const total = mode === "idle" ? 25 : mode === "files" ? 15 : 10;
let ticks = 0;
let synced = 0;
const timer = setInterval(() => {
  ticks += 1;
  if (mode === "stall" && ticks === 5) {
    console.log("stalling");
    spinFor250msInNodeLoop();
  }
  if (mode === "files" && ticks > 5 && ticks <= 10) {
    require("fs").writeFileSync(process.argv[3], require("fs").readFileSync(__filename));
    synced += 1;
  }
  if (ticks === total) {
    clearInterval(timer);
    if (mode === "files") {
      console.log(`sync-files ${synced}`);
      require("fs").unlinkSync(process.argv[3]);
    }
    console.log("done");
  }
}, 20);
