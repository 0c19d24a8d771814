// Runs edge/viewer-request.js, the file as deployed, under Node as CloudFront Functions would:
// in a context of its own (the language's built-ins only), its `cloudfront` module giving a
// KeyValueStore read from the JSON object {key: value} the local stack publishes (re-read when
// the file changes). Used by the local edge (tools/developers/devstack/edge.py: one JSON event per stdin
// line, the function's answer per stdout line), by tests/node and by `make bench`.
// Node needs --experimental-vm-modules for vm.SourceTextModule.
import {readFileSync, statSync} from 'node:fs';
import {createInterface} from 'node:readline';
import vm from 'node:vm';

// CloudFront KeyValueStore's limits on an entry (UTF-8 bytes): a store never holds more.
export const MAX_KEY_BYTES = 512;
export const MAX_VALUE_BYTES = 1024;

export class MissingKey extends Error {}

// A KeyValueStore with the documented helper methods over `entries` ({key: value}, or a function
// giving them on each read); entries over the limits are not held.
export function keyValueStore(entries) {
  const current = typeof entries === 'function' ? entries : () => entries;
  const value = (key) => {
    const held = current();
    if (Buffer.byteLength(key) > MAX_KEY_BYTES || !Object.hasOwn(held, key)) throw new MissingKey(key);
    const text = held[key];
    if (typeof text !== 'string' || Buffer.byteLength(text) > MAX_VALUE_BYTES) throw new MissingKey(key);
    return text;
  };
  return {
    async get(key, options) {
      const text = value(key);
      const format = (options && options.format) || 'string';
      if (format === 'json') return JSON.parse(text);
      return format === 'bytes' ? Buffer.from(text) : text;
    },
    async exists(key) {
      try {
        value(key);
        return true;
      } catch (missing) {
        return false;
      }
    },
    async meta() {
      const held = current();
      return {itemCount: Object.keys(held).length, totalSize: JSON.stringify(held).length};
    },
  };
}

// The entries the local stack publishes at `path` (written to a temporary file, then renamed
// over it), re-read when it changes: its mtime, or its inode within the same millisecond. {}
// while it does not exist: a store with nothing in it.
export function publishedEntries(path) {
  let seen = null;
  let entries = {};
  return () => {
    let version;
    try {
      const stat = statSync(path);
      version = `${stat.mtimeMs}:${stat.ino}:${stat.size}`;
    } catch (absent) {
      seen = null;
      return (entries = {});
    }
    if (version !== seen) {
      entries = JSON.parse(readFileSync(path, 'utf8'));
      seen = version;
    }
    return entries;
  };
}

// The function's `handler` from `file`, reading `store`. CloudFront calls the handler the file
// declares: the one line appended here says so to Node's module loader.
export async function loadFunction(file, store) {
  const context = vm.createContext({});
  const cloudfront = new vm.SyntheticModule(
    ['default'],
    function () {
      this.setExport('default', {kvs: () => store});
    },
    {context},
  );
  const source = readFileSync(file, 'utf8') + '\nexport {handler};\n';
  const module = new vm.SourceTextModule(source, {context, identifier: file});
  await module.link((specifier) => {
    if (specifier !== 'cloudfront') throw new Error(`CloudFront Functions has no module ${specifier}`);
    return cloudfront;
  });
  await module.evaluate();
  return module.namespace.handler;
}

async function serve(file, storePath) {
  const handler = await loadFunction(file, keyValueStore(publishedEntries(storePath)));
  process.stdout.write('ready\n');
  for await (const line of createInterface({input: process.stdin})) {
    let answer;
    try {
      answer = {result: await handler(JSON.parse(line))};
    } catch (error) {
      answer = {error: String(error && error.stack ? error.stack : error)};
    }
    process.stdout.write(JSON.stringify(answer) + '\n');
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
  await serve(process.argv[2], process.argv[3]);
}
