// A node program whose worker_threads Worker runs its own event loop and stalls it once, 200 ms
// in stallWorkerFor200ms(), while the main thread's loop only waits for the worker's messages.
// Lines on stdout: `pid=<pid>`, then `busy <ms>` (the stall as the worker timed it), then `done`.
'use strict';
const { Worker, isMainThread, parentPort } = require('worker_threads');

function stallWorkerFor200ms() {
  const until = performance.now() + 200;
  let spins = 0;
  while (performance.now() < until) spins++;
  return spins;
}

if (isMainThread) {
  console.log(`pid=${process.pid}`);
  const worker = new Worker(__filename);
  worker.on('message', (message) => console.log(message));
  worker.on('exit', () => console.log('done'));
} else {
  let ticks = 0;
  const timer = setInterval(() => {
    ticks++;
    if (ticks === 10) {
      const started = performance.now();
      stallWorkerFor200ms();
      parentPort.postMessage(`busy ${(performance.now() - started).toFixed(1)}`);
    }
    if (ticks === 20) clearInterval(timer);
  }, 20);
}
