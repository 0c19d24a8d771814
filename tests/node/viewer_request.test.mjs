// edge/viewer-request.js, the file as deployed, under Node's test runner (make unit): what it
// answers at the POP and what it leaves to the origin. Entries as shortlink/edge/entries.py
// writes them (tests/integration/test_edge_function.py feeds it Python-made ones).
import assert from 'node:assert/strict';
import {fileURLToPath} from 'node:url';
import {test} from 'node:test';

import {keyValueStore, loadFunction} from '../../tools/developers/devstack/edge_host.mjs';

const FUNCTION = fileURLToPath(new URL('../../edge/viewer-request.js', import.meta.url));
const HOUR = 3600 * 1000;
const HOST = 's.example';

function entry(location, {status = 302, flags = 1, validFrom = null, expiresAt = null} = {}) {
  return JSON.stringify([1, location, status, flags, validFrom, expiresAt]);
}

// `entries` by code are the links of HOST (stored as `s.example/<code>`); a key with a host is as given.
async function edge(entries, request) {
  const stored = {};
  for (const [key, value] of Object.entries(entries)) stored[key.includes('/') ? key : `${HOST}/${key}`] = value;
  const handler = await loadFunction(FUNCTION, keyValueStore(stored));
  const headers = {host: {value: HOST}, ...(request.headers || {})};
  const event = {
    version: '1.0',
    context: {eventType: 'viewer-request', requestId: 'test-request'},
    viewer: {ip: '198.51.100.7'},
    request: {method: 'GET', uri: '/abc', querystring: {}, cookies: {}, ...request, headers},
  };
  return plain(await handler(event));
}

// The function's answer as plain objects of this realm (it runs in a context of its own).
function plain(answer) {
  return JSON.parse(JSON.stringify(answer));
}

function redirect(status, location, cacheControl = 'no-store', robots = true) {
  const headers = {location: {value: location}, 'cache-control': {value: cacheControl}};
  if (robots) headers['x-robots-tag'] = {value: 'noindex'};
  const reasons = {301: 'Moved Permanently', 302: 'Found', 307: 'Temporary Redirect', 308: 'Permanent Redirect'};
  return {statusCode: status, statusDescription: reasons[status], headers};
}

function passedOn(answer) {
  return answer.statusCode === undefined && answer.uri !== undefined;
}

test('a hit is answered with the origin redirect', async () => {
  const answer = await edge({abc: entry('https://example.com/a')}, {});
  assert.deepEqual(answer, redirect(302, 'https://example.com/a'));
});

test('each redirect type keeps its status and caching; crawlable links have no X-Robots-Tag', async () => {
  for (const status of [301, 302, 307, 308]) {
    const answer = await edge({abc: entry('https://example.com/a', {status, flags: 3})}, {});
    const caching = status === 301 || status === 308 ? 'public, max-age=3600' : 'no-store';
    assert.deepEqual(answer, redirect(status, 'https://example.com/a', caching, false));
  }
});

test('a permanent redirect is cached no longer than the link lives', async () => {
  const expiresAt = Date.now() + 600 * 1000;
  const answer = await edge({abc: entry('https://example.com/a', {status: 301, expiresAt})}, {});
  const maxAge = Number(answer.headers['cache-control'].value.split('=')[1]);
  assert.ok(maxAge <= 600 && maxAge >= 598, `max-age ${maxAge}`);
});

test('a miss goes to the origin unchanged but for the host it names', async () => {
  const answer = await edge({}, {querystring: {a: {value: '1'}}, headers: {'x-shortlink-host': {value: 'evil.example'}}});
  assert.ok(passedOn(answer));
  assert.deepEqual(answer.querystring, {a: {value: '1'}});
  assert.deepEqual(answer.headers, {host: {value: 's.example'}, 'x-shortlink-host': {value: 's.example'}});
});

test('not yet valid and expired links are the origin\'s to answer (404, 410)', async () => {
  const now = Date.now();
  const early = await edge({abc: entry('https://example.com/a', {validFrom: now + HOUR})}, {});
  const late = await edge({abc: entry('https://example.com/a', {expiresAt: now - 1})}, {});
  const inside = await edge({abc: entry('https://example.com/a', {validFrom: now - HOUR, expiresAt: now + HOUR})}, {});
  assert.ok(passedOn(early));
  assert.ok(passedOn(late));
  assert.equal(inside.statusCode, 302);
});

test('HEAD is answered as GET (no body either way); other methods go to the origin', async () => {
  const stored = {abc: entry('https://example.com/a')};
  assert.deepEqual(await edge(stored, {method: 'HEAD'}), redirect(302, 'https://example.com/a'));
  for (const method of ['POST', 'OPTIONS', 'PUT', 'DELETE']) assert.ok(passedOn(await edge(stored, {method})));
});

test('the visitor query is appended after the destination and UTM fields, names taken are left out', async () => {
  const stored = {abc: entry('https://example.com/a?x=1&utm_source=news#top')};
  const querystring = {ref: {value: 'mail'}, x: {value: '2'}, utm_source: {value: 'spam'}, empty: {value: ''}};
  const answer = await edge(stored, {querystring});
  assert.equal(answer.headers.location.value, 'https://example.com/a?x=1&utm_source=news&ref=mail&empty=#top');
});

test('a link that does not forward the query ignores it, however hostile', async () => {
  const stored = {abc: entry('https://example.com/a', {flags: 0})};
  const answer = await edge(stored, {querystring: {'<script>': {value: '%00\r\n'}}});
  assert.equal(answer.headers.location.value, 'https://example.com/a');
});

test('hostile or ambiguous queries go to the origin, which merges them with ada-url', async () => {
  const stored = {abc: entry('https://example.com/a')};
  const hostile = [
    {q: {value: 'a b'}},
    {q: {value: '%ff'}},
    {q: {value: 'a+b'}},
    {'a%26b': {value: '1'}},
    {q: {value: 'x\r\nLocation: https://evil.example'}},
    {q: {value: '1', multiValue: [{value: '1'}, {value: '2'}]}},
    {2: {value: 'first'}},
    {q: {value: 'é'}},
    {q: {value: 'a'.repeat(2100)}},
  ];
  for (const querystring of hostile) assert.ok(passedOn(await edge(stored, {querystring})), JSON.stringify(querystring));
  const proto = JSON.parse('{"__proto__": {"value": "x"}}');
  assert.equal((await edge(stored, {querystring: proto})).headers.location.value, 'https://example.com/a?__proto__=x');
});

test('a destination query that does not decode sends visitor queries to the origin', async () => {
  const stored = {abc: entry('https://example.com/a?%zz=1')};
  assert.ok(passedOn(await edge(stored, {querystring: {a: {value: '1'}}})));
  assert.equal((await edge(stored, {})).headers.location.value, 'https://example.com/a?%zz=1');
});

test('each host reads its own key, in one read; an unknown host misses', async () => {
  const stored = {'s.example/abc': entry('https://example.com/default'), 'go.example/abc': entry('https://example.com/go')};
  const on = async (host) => edge(stored, {headers: {host: {value: host}}});
  assert.equal((await on('s.example')).headers.location.value, 'https://example.com/default');
  assert.equal((await on('S.Example:443')).headers.location.value, 'https://example.com/default');
  assert.equal((await on('go.example')).headers.location.value, 'https://example.com/go');
  for (const host of ['other.example', '', 'd111.cloudfront.net', 's.example/abc', 's.example:x', '[::1]']) {
    assert.ok(passedOn(await on(host)), host);
  }
  const reads = [];
  const store = keyValueStore(stored);
  const counting = {get: (key, options) => (reads.push(key), store.get(key, options)), exists: store.exists};
  const handler = await loadFunction(FUNCTION, counting);
  const request = {method: 'GET', uri: '/abc', querystring: {}, headers: {host: {value: 'go.example'}}};
  assert.equal((await handler({request})).statusCode, 302);
  assert.deepEqual(reads, ['go.example/abc']);
});

test('without Domains the distribution host reads the bare code', async () => {
  const handler = await loadFunction(FUNCTION, keyValueStore({abc: entry('https://x.example/')}));
  const request = {method: 'GET', uri: '/abc', querystring: {}, headers: {host: {value: 'd111.cloudfront.net'}}};
  assert.equal((await handler({request})).statusCode, 302);
});

test('a prefetch or prerender goes to the origin, which declines it uncounted', async () => {
  const stored = {abc: entry('https://example.com/a')};
  for (const [name, value] of [['sec-purpose', 'prefetch'], ['purpose', 'prefetch'], ['x-moz', 'prefetch'], ['sec-purpose', 'prefetch;prerender']]) {
    assert.ok(passedOn(await edge(stored, {headers: {[name]: {value}}})), name);
  }
});

test('a link-preview bot gets the redirect of a link without a card, as from the origin', async () => {
  const stored = {abc: entry('https://example.com/a')};
  const answer = await edge(stored, {headers: {'user-agent': {value: 'facebookexternalhit/1.1'}}});
  assert.deepEqual(answer, redirect(302, 'https://example.com/a'));
});

test('a link with a card: previewers (and anything like one) go to the origin for it, browsers get the redirect', async () => {
  const stored = {abc: entry('https://example.com/a', {flags: 1 | 4})};
  const agents = ['facebookexternalhit/1.1', 'Twitterbot/1.0', 'Slack-ImgProxy', 'WhatsApp/2.23', 'SkypeUriPreview', 'vk\u017Fhare'];
  for (const agent of agents) {
    for (const method of ['GET', 'HEAD']) {
      assert.ok(passedOn(await edge(stored, {method, headers: {'user-agent': {value: agent}}})), agent);
    }
  }
  const browser = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';
  assert.deepEqual(await edge(stored, {headers: {'user-agent': {value: browser}}}), redirect(302, 'https://example.com/a'));
  assert.deepEqual(await edge(stored, {}), redirect(302, 'https://example.com/a'));
  const twice = {value: browser, multiValue: [{value: browser}, {value: 'Twitterbot/1.0'}]};
  assert.ok(passedOn(await edge(stored, {headers: {'user-agent': twice}})), 'a second User-Agent counts too');
});

test('paths that are not a code go to the origin', async () => {
  const stored = {abc: entry('https://example.com/a')};
  for (const uri of ['/', '/abc/', '/ab%63', '/robots.txt', '/links', '/' + 'a'.repeat(65), '//abc', '/abc?x']) {
    assert.ok(passedOn(await edge(stored, {uri})), uri);
  }
});

test('malformed, foreign or oversized entries go to the origin', async () => {
  const malformed = [
    'not json',
    '{"location": "https://example.com/"}',
    JSON.stringify([2, 'https://example.com/a', 302, 1, null, null]),
    JSON.stringify([1, 'javascript:alert(1)', 302, 1, null, null]),
    JSON.stringify([1, 'https://example.com/a', 303, 1, null, null]),
    JSON.stringify([1, 'https://example.com/a', '__proto__', 1, null, null]),
    '[1, "https://example.com/a", 302, 1, null, 1e400]',
    JSON.stringify([1, 'https://example.com/a', 302, '1', null, null]),
    JSON.stringify([1, 'https://example.com/a', 302, 1, 'soon', null]),
    JSON.stringify([1, 'https://example.com/a', 302, 1, null]),
    entry('https://example.com/' + 'a'.repeat(1000)),
  ];
  for (const value of malformed) assert.ok(passedOn(await edge({abc: value}, {})), value.slice(0, 60));
  const longHost = `${'a'.repeat(63)}.`.repeat(4).slice(0, 253);
  const request = {uri: '/' + 'c'.repeat(64), headers: {host: {value: longHost}}};
  assert.ok(passedOn(await edge({}, request)), 'the longest key misses');
});

test('a store holding an oversized key refuses it', async () => {
  const store = keyValueStore({['k'.repeat(513)]: '"x"'});
  assert.equal(await store.exists('k'.repeat(513)), false);
  await assert.rejects(store.get('k'.repeat(513)));
});
