/**
 * The SSRF guard's address rules: which hosts and IP addresses a user-supplied URL may never reach.
 * Pure functions; the client (http.ts) applies them to the URL before a request and to the address
 * actually connected to (guard-agent.ts), so DNS names and rebinding cannot slip past.
 */
import net from 'node:net';

/** Names that always mean this machine or a cloud metadata service, whatever DNS says. */
const BLOCKED_NAMES = [/^localhost$/, /\.localhost$/, /^metadata\.google\.internal$/, /^metadata\.goog$/, /^instance-data(\.ec2\.internal)?$/];

/** IPv4 ranges no user URL may reach: [first octets as a 32-bit number, prefix length, why]. */
const V4_BLOCKED: Array<[string, number, string]> = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local / cloud metadata'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved / broadcast'],
];

const V4_RANGES = V4_BLOCKED.map(([base, bits, why]) => ({ base: v4ToNumber(base)!, mask: bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0, why }));

function v4ToNumber(address: string): number | null {
  const parts = address.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return null;
    value = value * 256 + Number(part);
  }
  return value >>> 0;
}

function v4Reason(value: number): string | null {
  for (const range of V4_RANGES) if (((value & range.mask) >>> 0) === range.base) return range.why;
  return null;
}

/** Sixteen bytes of an IPv6 address (brackets and zone allowed), or null. */
function v6ToBytes(input: string): number[] | null {
  let address = input.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!net.isIPv6(address)) return null;
  // A trailing dotted quad (::ffff:1.2.3.4) becomes two hex groups.
  const dotted = address.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) {
    const v4 = v4ToNumber(dotted[1]);
    if (v4 === null) return null;
    address = address.slice(0, -dotted[1].length) + `${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head, tail] = address.includes('::') ? address.split('::') : [address, undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array(missing).fill('0'), ...tailGroups];
  if (groups.length !== 8) return null;
  return groups.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
}

function v6Reason(bytes: number[]): string | null {
  const isZero = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  const embedded = (offset: number) => ((bytes[offset] << 24) | (bytes[offset + 1] << 16) | (bytes[offset + 2] << 8) | bytes[offset + 3]) >>> 0;
  if (isZero(0, 16)) return 'unspecified';
  if (isZero(0, 15) && bytes[15] === 1) return 'loopback';
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d): judged as the IPv4 address they carry.
  if (isZero(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return v4Reason(embedded(12)) ?? null;
  if (isZero(0, 12)) return v4Reason(embedded(12)) ?? 'IPv4-compatible';
  // IPv4-translated (::ffff:0:a.b.c.d, RFC 2765): stacks that route it reach the IPv4 address it carries.
  if (isZero(0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && isZero(10, 12)) return v4Reason(embedded(12)) ?? 'IPv4-translated';
  // NAT64 (64:ff9b::/96) carries an IPv4 address too; the local-use prefix 64:ff9b:1::/48 is private.
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b) {
    if (isZero(4, 12)) return v4Reason(embedded(12));
    return 'NAT64 local use';
  }
  // 6to4 (2002::/16) embeds an IPv4 address in bytes 2-5.
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return v4Reason(embedded(2));
  if (bytes[0] === 0x20 && bytes[1] === 0x01 && bytes[2] === 0x00 && bytes[3] === 0x00) return 'Teredo';
  if (bytes[0] === 0x20 && bytes[1] === 0x01 && bytes[2] === 0x0d && bytes[3] === 0xb8) return 'documentation';
  if (bytes[0] === 0x01 && bytes[1] === 0x00 && isZero(2, 8)) return 'discard-only';
  if ((bytes[0] & 0xfe) === 0xfc) return 'unique local (private)';
  if (bytes[0] === 0xfe && (bytes[1] & 0xc0) === 0x80) return 'link-local';
  if (bytes[0] === 0xfe && (bytes[1] & 0xc0) === 0xc0) return 'site-local';
  if (bytes[0] === 0xff) return 'multicast';
  return null;
}

/**
 * Why an IP address must not be reached, or null when it is public. Accepts dotted IPv4 and any
 * IPv6 spelling (bracketed, compressed, IPv4-mapped); anything else is not an address (null).
 */
export function blockedAddressReason(address: string): string | null {
  const v4 = v4ToNumber(address);
  if (v4 !== null) return v4Reason(v4);
  const v6 = v6ToBytes(address);
  return v6 ? v6Reason(v6) : null;
}

/**
 * Why a URL host must not be reached before any DNS lookup, or null. `hostname` is the WHATWG-parsed
 * host (new URL(...).hostname), which already turns 0x7f000001, 2130706433, 0177.0.0.1 and 127.1
 * into 127.0.0.1; other spellings are parsed again here in case a caller passes a raw string.
 */
export function blockedHostReason(hostname: string): string | null {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (BLOCKED_NAMES.some((pattern) => pattern.test(host))) return host.includes('localhost') ? 'loopback' : 'cloud metadata';
  const literal = canonicalIpv4(host);
  if (literal) return v4Reason(v4ToNumber(literal)!);
  return blockedAddressReason(host);
}

/** The dotted form of an IPv4 literal in any spelling inet_aton accepts (hex, octal, decimal, short), or null. */
export function canonicalIpv4(host: string): string | null {
  const parts = host.split('.');
  if (parts.length === 0 || parts.length > 4 || parts.some((p) => p === '')) return null;
  const numbers: number[] = [];
  for (const part of parts) {
    let n: number;
    if (/^0x[0-9a-f]*$/i.test(part)) n = part.length === 2 ? 0 : parseInt(part.slice(2), 16);
    else if (/^0[0-7]+$/.test(part)) n = parseInt(part, 8);
    else if (/^\d+$/.test(part)) n = Number(part);
    else return null;
    if (!Number.isFinite(n)) return null;
    numbers.push(n);
  }
  const last = numbers.pop()!;
  if (numbers.some((n) => n > 255) || last >= 256 ** (4 - numbers.length)) return null;
  let value = last;
  numbers.forEach((n, i) => (value += n * 256 ** (3 - i)));
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}
