// Shortlink's viewer-request function (CloudFront Functions, runtime cloudfront-js-2.0).
//
// Every request: the viewer's Host is copied into X-Shortlink-Host (replacing one a viewer
// sent), which the origin reads to tell the short domains apart.
// A follow (GET or HEAD /<code>) of a link the KeyValueStore holds, inside its valid window, is
// answered here with the origin's own redirect: same status, Location, Cache-Control and
// X-Robots-Tag. One read per follow, of the key `<host>/<code>` (the bare code on the
// distribution's own host): a host the stack does not serve simply misses. Anything this function cannot decide exactly as the origin would goes on to
// the origin unchanged. Entries: layers/common/shortlink/edge/entries.py; docs/edge.md.
// Written in what the runtime documents (ES 5.1, const/let, async/await): no for-of, no
// destructuring.
import cf from 'cloudfront';

const store = cf.kvs();
const ENTRY_VERSION = 1;
const FORWARD_QUERY = 1;
const CRAWLABLE = 2;
const PREVIEW = 4;
const MAX_URL_LENGTH = 2048;
const PERMANENT_MAX_AGE = 3600;
const EDGE_HOST_SUFFIX = '.cloudfront.net';
const FOLLOW_PATH = /^\/([A-Za-z0-9_-]{1,64})$/;
// A host name as the store's keys spell it (lower case, no port).
const HOST_NAME = /^[a-z0-9.-]{1,253}$/;
// A query name or value that reads the same percent-decoded or not, and that WHATWG's
// urlencoded serializer writes unchanged: only such parameters are merged here.
const VERBATIM = /^[A-Za-z0-9*._-]*$/;
// Names an object orders before all others (array indices): their place in the query is lost.
const INDEX = /^[0-9]+$/;
// Link-preview bots, which the origin shows a link's card: shortlink.rules.user_agents'
// LINK_PREVIEW_PATTERN and more (any bot, any previewer, any non-ASCII User-Agent, which Python's
// case-insensitive match may fold), so none of them is ever answered here.
const PREVIEWER = new RegExp('bot|preview|crawl|spider|facebookexternalhit|slack-imgproxy|whatsapp|pinterest|' +
  'embedly|iframely|vkshare|mastodon|bluesky|cardyb|[^\\x00-\\x7f]', 'i');
const REASONS = {301: 'Moved Permanently', 302: 'Found', 307: 'Temporary Redirect', 308: 'Permanent Redirect'};

async function handler(event) {
  const request = event.request;
  const host = header(request.headers, 'host');
  request.headers['x-shortlink-host'] = {value: host};
  const answer = await follow(request, host);
  return answer || request;
}

// The redirect of a follow, or null for the origin to answer.
async function follow(request, host) {
  if (request.method !== 'GET' && request.method !== 'HEAD') return null;
  const path = FOLLOW_PATH.exec(request.uri);
  if (!path || speculative(request.headers)) return null;
  const key = linkKey(host, path[1]);
  if (key === null) return null;
  const link = entry(await read(key));
  const now = Date.now();
  if (!link || (link.validFrom !== null && now < link.validFrom)) return null;
  if (link.expiresAt !== null && now >= link.expiresAt) return null;
  if (link.flags & PREVIEW && PREVIEWER.test(header(request.headers, 'user-agent'))) return null;
  const location = link.flags & FORWARD_QUERY ? withQuery(link.location, request.querystring) : link.location;
  if (location === null) return null;
  const headers = {location: {value: location}, 'cache-control': {value: cacheControl(link, now)}};
  if (!(link.flags & CRAWLABLE)) headers['x-robots-tag'] = {value: 'noindex'};
  return {statusCode: link.status, statusDescription: REASONS[link.status], headers: headers};
}

// A header's value, all of them when repeated (as API Gateway joins them for the origin).
function header(headers, name) {
  const field = headers[name];
  if (!field) return '';
  return field.multiValue ? field.multiValue.map((each) => each.value).join(',') : field.value;
}

// A browser's prefetch or prerender: the origin declines it uncounted (any purpose header).
function speculative(headers) {
  return Boolean(headers['sec-purpose'] || headers['purpose'] || headers['x-moz']);
}

// The value stored under `key` (JSON), or null.
async function read(key) {
  try {
    return await store.get(key, {format: 'json'});
  } catch (missing) {
    return null;
  }
}

// The key of `code` followed on `host` (shortlink/edge/entries.py's edge_key): the bare code on
// the distribution's own host, which only a stack without Domains serves links on; null for a
// host no key can name. A final dot (`sho.rt.`, fully qualified) names the same host.
function linkKey(host, code) {
  const name = host.replace(/:[0-9]{1,5}$/, '').replace(/\.$/, '').toLowerCase();
  if (endsWith(name, EDGE_HOST_SUFFIX)) return code;
  return HOST_NAME.test(name) ? name + '/' + code : null;
}

// A link's entry ([version, location, status, flags, validFrom, expiresAt]), or null when it
// is not one this function reads.
function entry(value) {
  if (!Array.isArray(value) || value.length !== 6 || value[0] !== ENTRY_VERSION) return null;
  const link = {location: value[1], status: value[2], flags: value[3], validFrom: value[4], expiresAt: value[5]};
  if (typeof link.location !== 'string' || !/^https?:\/\//.test(link.location)) return null;
  if (!integer(link.status) || !REASONS[link.status] || !integer(link.flags)) return null;
  return moment(link.validFrom) && moment(link.expiresAt) ? link : null;
}

function integer(value) {
  return typeof value === 'number' && value % 1 === 0;
}

function moment(value) {
  return value === null || integer(value);
}

function endsWith(text, end) {
  return text.slice(text.length - end.length) === end;
}

// 302 and 307: never cached. 301 and 308: an hour, never past the link's expiry.
function cacheControl(link, now) {
  if (link.status === 302 || link.status === 307) return 'no-store';
  const remaining = link.expiresAt === null ? PERMANENT_MAX_AGE : Math.floor((link.expiresAt - now) / 1000);
  return 'public, max-age=' + Math.max(0, Math.min(PERMANENT_MAX_AGE, remaining));
}

// `location` with the visitor's parameters its own query does not name appended in the order
// sent (shortlink.links.destinations); null where that cannot be reproduced exactly here.
function withQuery(location, querystring) {
  const names = Object.keys(querystring);
  if (names.length === 0) return location;
  const hash = location.indexOf('#');
  const beforeFragment = hash < 0 ? location : location.slice(0, hash);
  const fragment = hash < 0 ? '' : location.slice(hash);
  const mark = beforeFragment.indexOf('?');
  const own = mark < 0 ? '' : beforeFragment.slice(mark + 1);
  const taken = queryNames(own);
  if (taken === null) return null;
  const added = [];
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    const parameter = querystring[name];
    if (parameter.multiValue || INDEX.test(name) || !VERBATIM.test(name) || !VERBATIM.test(parameter.value)) {
      return null;
    }
    if (taken.indexOf(name) < 0) added.push(name + '=' + parameter.value);
  }
  if (added.length === 0) return location;
  const path = mark < 0 ? beforeFragment : beforeFragment.slice(0, mark);
  const merged = path + '?' + (own ? own + '&' : '') + added.join('&') + fragment;
  return merged.length > MAX_URL_LENGTH ? null : merged;
}

// The decoded names of a query; null if one does not decode.
function queryNames(query) {
  const names = [];
  const segments = query.split('&');
  for (let i = 0; i < segments.length; i++) {
    if (!segments[i]) continue;
    const name = segments[i].split('=')[0];
    try {
      names.push(decodeURIComponent(name.replace(/\+/g, ' ')));
    } catch (undecodable) {
      return null;
    }
  }
  return names;
}
