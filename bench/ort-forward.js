// SPDX-License-Identifier: GPL-3.0-or-later
// ONNX Runtime side of bench-engines.py: loads one exported model, then answers
// commands on stdin, one line each, so the script can alternate it with
// Poslens and PyTorch round by round:
//   "run"        runs the model on the ids, prints the seconds
//   "save PATH"  writes the first output (the last hidden state) as float32
//   "quit"
//   node ort-forward.js ONNXRUNTIME_NODE_DIR MODEL.onnx IDS.txt THREADS

const fs = require('fs');
const readline = require('readline');

const [ortDir, modelPath, idsPath, threads] = process.argv.slice(2);
const ort = require(ortDir);

async function main() {
  const session = await ort.InferenceSession.create(modelPath, {
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
    intraOpNumThreads: Number(threads),
    interOpNumThreads: 1,
  });
  const ids = fs.readFileSync(idsPath, 'utf8').trim().split(/[\s,]+/).map((w) => BigInt(w));
  const feeds = { input_ids: new ort.Tensor('int64', BigInt64Array.from(ids), [1, ids.length]) };
  let last = null;

  console.log(JSON.stringify({ outputs: session.outputNames.length }));
  const lines = readline.createInterface({ input: process.stdin });
  for await (const line of lines) {
    const [command, arg] = line.trim().split(' ');
    if (command === 'run') {
      const start = process.hrtime.bigint();
      last = await session.run(feeds);
      console.log((Number(process.hrtime.bigint() - start) / 1e9).toFixed(6));
    } else if (command === 'save') {
      const data = last[session.outputNames[0]].data;
      fs.writeFileSync(arg, Buffer.from(data.buffer, data.byteOffset, data.byteLength));
      console.log('saved');
    } else {
      break;
    }
  }
  lines.close();
}

main().catch((e) => { console.error(e.message); process.exit(1); });
