// A Node.js program for lagmon's wait-call probe tests.
//
//   node lagmon-node-fixture.js stall   // 5 ticks of 20 ms, 250 ms of synchronous work in a
//                                       // timer callback, 5 more ticks
//   node lagmon-node-fixture.js idle    // 25 ticks of 20 ms, nothing else
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
const total = mode === "stall" ? 10 : 25;
let ticks = 0;
const timer = setInterval(() => {
  ticks += 1;
  if (mode === "stall" && ticks === 5) {
    console.log("stalling");
    spinFor250msInNodeLoop();
  }
  if (ticks === total) {
    clearInterval(timer);
    console.log("done");
  }
}, 20);
