// SPDX-License-Identifier: GPL-3.0-or-later
// llama.cpp side of bench-llama-cpp.py, through node-llama-cpp 3.21.1's prebuilt CPU library:
// loads one GGUF file (mmap, node-llama-cpp's default; no GPU), makes a context of the prompt's
// length with a batch of the whole prompt, and evaluates the prompt's ids with THREADS threads.
//   node llama-cpp-eval.mjs NODE_MODULES MODEL.gguf IDS.txt THREADS once
//       loads, evaluates once, prints one JSON line {load, eval} in seconds and exits (the
//       whole-process measurement times this process from outside);
//   node llama-cpp-eval.mjs NODE_MODULES MODEL.gguf IDS.txt THREADS serve
//       loads, prints a JSON line of what it runs with, then answers commands on stdin, one line
//       each: "eval" evaluates the prompt in a fresh sequence and prints the seconds; "embed PATH"
//       writes the last token's final hidden state (after output_norm) as float32; "quit".

import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { pathToFileURL } from 'node:url';

const [nodeModules, modelPath, idsPath, threadsText, mode] = process.argv.slice(2);
const threads = Number(threadsText);
const { getLlama, LlamaLogLevel } = await import(
  pathToFileURL(path.join(nodeModules, 'node-llama-cpp', 'dist', 'index.js')).href);

const ids = fs.readFileSync(idsPath, 'utf8').trim().split(/[\s,]+/).map(Number);
const seconds = (start) => Number(process.hrtime.bigint() - start) / 1e9;

async function main() {
  const start = process.hrtime.bigint();
  const llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error, maxThreads: threads });
  const model = await llama.loadModel({ modelPath, gpuLayers: 0 });
  // A context of exactly the prompt (llama.cpp rounds it up to 256), the whole prompt in one batch,
  // flash attention as node-llama-cpp chooses by default ("auto").
  const context = await model.createContext({ contextSize: ids.length, batchSize: ids.length, threads });
  const load = seconds(start);

  async function evaluate() {
    const sequence = context.getSequence();
    const t0 = process.hrtime.bigint();
    await sequence.evaluateWithoutGeneratingNewTokens(ids);
    const took = seconds(t0);
    sequence.dispose();
    return took;
  }

  if (mode === 'once') {
    const took = await evaluate();
    console.log(JSON.stringify({ load, eval: took }));
    process.exit(0);
  }
  console.log(JSON.stringify({
    load, threads: context.currentThreads, contextSize: context.contextSize, batchSize: context.batchSize,
    flashAttention: context.flashAttention, mmap: model.useMmap, gpu: llama.gpu,
    cpu: llama.cpuMathCores, buildType: llama.buildType,
  }));
  let embedding = null;
  const lines = readline.createInterface({ input: process.stdin });
  for await (const line of lines) {
    const [command, arg] = line.trim().split(' ');
    if (command === 'eval') {
      console.log((await evaluate()).toFixed(6));
    } else if (command === 'embed') {
      if (embedding === null)
        embedding = await model.createEmbeddingContext({ contextSize: ids.length + 1, batchSize: ids.length, threads });
      const vector = (await embedding.getEmbeddingFor(ids)).vector;
      fs.writeFileSync(arg, Buffer.from(Float32Array.from(vector).buffer));
      console.log('saved');
    } else {
      break;
    }
  }
  lines.close();
  process.exit(0);
}

main().catch((e) => { console.error(e.stack); process.exit(1); });
