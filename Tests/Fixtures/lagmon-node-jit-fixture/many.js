// A Node.js program with a large perf map, for the JIT-map symbolization bench (scripts/bench,
// row jitMap): it compiles N small functions (`new Function`), calls each, prints
// `ready pid=P functions=N`, then idles until a line arrives on stdin.
//
//   NODE_OPTIONS="--perf-basic-prof-only-functions --interpreted-frames-native-stack" node many.js N
"use strict";
const count = Number(process.argv[2] || 10000);
let sum = 0;
for (let i = 0; i < count; i++) {
  const f = new Function("x", `return x * ${i} + ${i % 7};`);
  for (let k = 0; k < 3; k++) sum += f(k);
}
console.log("ready pid=" + process.pid + " functions=" + count + " sum=" + sum);
const idle = setInterval(() => {}, 1000);
process.stdin.on("data", () => {
  clearInterval(idle);
  process.exit(0);
});
