// `make bench`'s run of edge/viewer-request.js (tools/developers/bench/edge_function.py): the file as deployed,
// loaded by the local edge's Node host, over each case's event against an in-memory store. Reads
// {entries, cases: {name: event}, rounds, per_round} on stdin; writes {name: {p50_us, p99_us, answered}}.
import {readFileSync} from 'node:fs';

import {keyValueStore, loadFunction} from '../devstack/edge_host.mjs';

const input = JSON.parse(readFileSync(0, 'utf8'));
const handler = await loadFunction(input.function, keyValueStore(input.entries));
// Warmed up first, every case alike: Node compiles the function as it runs.
for (let round = 0; round < 10; round++) {
  for (const event of Object.values(input.cases)) {
    for (let i = 0; i < input.per_round; i++) await handler(structuredClone(event));
  }
}
const results = {};
for (const [name, event] of Object.entries(input.cases)) {
  const answer = await handler(structuredClone(event));
  const rounds = [];
  for (let round = 0; round < input.rounds; round++) {
    const events = Array.from({length: input.per_round}, () => structuredClone(event));
    const started = process.hrtime.bigint();
    for (const each of events) await handler(each);
    rounds.push(Number(process.hrtime.bigint() - started) / 1000 / input.per_round);
  }
  rounds.sort((a, b) => a - b);
  const at = (share) => rounds[Math.min(rounds.length - 1, Math.floor(share * rounds.length))];
  results[name] = {p50_us: Number(at(0.5).toFixed(2)), p99_us: Number(at(0.99).toFixed(2)), answered: 'statusCode' in answer};
}
process.stdout.write(JSON.stringify(results) + '\n');
