import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KowalskiError } from '../../core/index.js';
import { AllowList, blockedReason, checkUrl } from '../../agents/net/address-policy.js';

const BLOCKED_ADDRESSES: Array<[ip: string, reason: RegExp]> = [
  ['127.0.0.1', /loopback/],
  ['127.255.255.254', /loopback/],
  ['::1', /loopback/],
  ['10.1.2.3', /private/],
  ['172.16.0.1', /private/],
  ['172.31.255.255', /private/],
  ['192.168.1.1', /private/],
  ['fc00::1', /private/],
  ['fd12:3456::1', /private/],
  ['169.254.1.1', /link-local/],
  ['fe80::1', /link-local/],
  ['fe80::1%eth0', /link-local/],
  ['100.64.0.1', /carrier-grade NAT/],
  ['100.127.255.254', /carrier-grade NAT/],
  ['224.0.0.1', /multicast/],
  ['239.255.255.250', /multicast/],
  ['ff02::1', /multicast/],
  ['0.0.0.0', /unspecified/],
  ['0.1.2.3', /unspecified/],
  ['::', /unspecified/],
  ['255.255.255.255', /broadcast/],
  ['240.0.0.1', /reserved/],
  ['192.0.2.1', /reserved/],
  ['198.18.0.1', /reserved/],
  ['2001:db8::1', /reserved/],
  ['100::1', /discard/],
  ['4000::1', /not global unicast/],
  ['169.254.169.254', /cloud metadata/],
  ['169.254.170.2', /cloud metadata/],
  ['fd00:ec2::254', /cloud metadata/],
  ['100.100.100.200', /cloud metadata/],
  ['168.63.129.16', /cloud metadata/],
  ['192.0.0.192', /cloud metadata/],
  ['::ffff:127.0.0.1', /IPv4-mapped IPv6 wrapping 127\.0\.0\.1 \(loopback\)/],
  ['::ffff:7f00:1', /IPv4-mapped IPv6 wrapping 127\.0\.0\.1 \(loopback\)/],
  ['::ffff:169.254.169.254', /wrapping 169\.254\.169\.254 \(cloud metadata\)/],
  ['::ffff:0:a00:1', /IPv4-translated IPv6 wrapping 10\.0\.0\.1 \(private\)/],
  ['::127.0.0.1', /IPv4-compatible/],
  ['::7f00:1', /IPv4-compatible/],
  ['::8.8.8.8', /IPv4-compatible/],
  ['64:ff9b::7f00:1', /NAT64 wrapping 127\.0\.0\.1 \(loopback\)/],
  ['64:ff9b::a9fe:a9fe', /NAT64 wrapping 169\.254\.169\.254 \(cloud metadata\)/],
  ['64:ff9b:1::8.8.8.8', /local-use NAT64/],
  ['2002:7f00:1::', /6to4 wrapping 127\.0\.0\.1 \(loopback\)/],
  ['2002:c0a8:101::1', /6to4 wrapping 192\.168\.1\.1 \(private\)/],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /Teredo/],
  ['not-an-ip', /not an IP address/],
];

const PUBLIC_ADDRESSES = [
  '8.8.8.8', '1.1.1.1', '93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e',
  '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1',
];

test('every refused address has a reason naming its range', () => {
  for (const [ip, reason] of BLOCKED_ADDRESSES) {
    const got = blockedReason(ip);
    assert.ok(got !== undefined, `${ip} passed`);
    assert.match(got, reason, ip);
  }
});

test('public unicast addresses pass, also when an IPv6 form wraps a public IPv4 address', () => {
  for (const ip of PUBLIC_ADDRESSES) assert.equal(blockedReason(ip), undefined, ip);
});

/** Each spelling of a refused host in a URL, and the address it names. */
const BLOCKED_URLS: Array<[url: string, says: RegExp]> = [
  ['http://127.0.0.1/', /127\.0\.0\.1 is loopback/],
  ['http://2130706433/', /127\.0\.0\.1 is loopback/],
  ['http://0177.0.0.1/', /127\.0\.0\.1 is loopback/],
  ['http://017700000001/', /127\.0\.0\.1 is loopback/],
  ['http://0x7f.1/', /127\.0\.0\.1 is loopback/],
  ['http://0x7f000001/', /127\.0\.0\.1 is loopback/],
  ['http://127.1/', /127\.0\.0\.1 is loopback/],
  ['http://127.0.0.1./', /127\.0\.0\.1 is loopback/],
  ['http://%31%32%37.0.0.1/', /127\.0\.0\.1 is loopback/],
  ['http://１２７.０.０.１/', /127\.0\.0\.1 is loopback/],
  ['http://0/', /0\.0\.0\.0 is unspecified/],
  ['http://[::1]:8080/', /::1 is loopback/],
  ['http://[::]/', /:: is unspecified/],
  ['http://[::ffff:127.0.0.1]/', /::ffff:7f00:1 is IPv4-mapped IPv6 wrapping 127\.0\.0\.1/],
  ['http://[0:0:0:0:0:ffff:7f00:1]/', /IPv4-mapped IPv6 wrapping 127\.0\.0\.1/],
  ['http://[::127.0.0.1]/', /IPv4-compatible/],
  ['http://[64:ff9b::127.0.0.1]/', /NAT64 wrapping 127\.0\.0\.1/],
  ['http://[2002:a9fe:a9fe::]/', /6to4 wrapping 169\.254\.169\.254/],
  ['http://[2001::1]/', /Teredo/],
  ['http://[fd00:ec2::254]/latest/meta-data/', /cloud metadata/],
  ['http://169.254.169.254/latest/meta-data/', /cloud metadata/],
  ['http://user:pw@169.254.169.254/', /user name or password/],
  ['http://10.0.0.1/', /private/],
  ['https://192.168.0.1:8443/', /private/],
  ['http://100.64.1.1/', /carrier-grade NAT/],
  ['http://localhost/', /localhost names this machine/],
  ['http://LOCALHOST./', /localhost\. names this machine/],
  ['http://api.localhost/', /api\.localhost names this machine/],
  ['http://a.b.localhost.:3000/', /names this machine/],
  ['ftp://example.com/file', /scheme ftp: is not fetched/],
  ['file:///etc/passwd', /scheme file: is not fetched/],
  ['gopher://example.com/', /scheme gopher: is not fetched/],
  ['data:text/plain,hi', /scheme data: is not fetched/],
];

test('every spelling of a refused host is caught in the URL, before any DNS', () => {
  const none = new AllowList();
  for (const [url, says] of BLOCKED_URLS) {
    assert.throws(() => checkUrl(new URL(url), none), (err: unknown) => {
      assert.ok(err instanceof KowalskiError, url);
      assert.equal(err.code, 'KW_ERR_FETCH_BLOCKED', url);
      assert.match(err.message, says, url);
      return true;
    }, url);
  }
});

test('public hosts pass the URL check; names are left for connect time', () => {
  const none = new AllowList();
  assert.deepEqual(checkUrl(new URL('https://example.com/x'), none), { kind: 'name', name: 'example.com' });
  assert.deepEqual(checkUrl(new URL('http://localhost.example.com/'), none), { kind: 'name', name: 'localhost.example.com' });
  assert.deepEqual(checkUrl(new URL('http://8.8.8.8/'), none), { kind: 'ip', address: '8.8.8.8' });
  assert.deepEqual(checkUrl(new URL('http://134744072/'), none), { kind: 'ip', address: '8.8.8.8' });
  assert.deepEqual(checkUrl(new URL('https://[2606:4700:4700::1111]/'), none), { kind: 'ip', address: '2606:4700:4700::1111' });
});

test('the test-only allowance admits exactly the ip:port pairs it names', () => {
  const allow = new AllowList(['127.0.0.1:8080', '[::1]:9090']);
  assert.deepEqual(checkUrl(new URL('http://127.0.0.1:8080/'), allow), { kind: 'ip', address: '127.0.0.1' });
  assert.deepEqual(checkUrl(new URL('http://2130706433:8080/'), allow), { kind: 'ip', address: '127.0.0.1' });
  assert.deepEqual(checkUrl(new URL('http://[::1]:9090/'), allow), { kind: 'ip', address: '::1' });
  assert.equal(allow.has('::ffff:127.0.0.1', 8080), true);
  for (const url of ['http://127.0.0.1:8081/', 'http://127.0.0.1/', 'http://127.0.0.2:8080/', 'http://[::1]:8080/', 'http://localhost:8080/']) {
    assert.throws(() => checkUrl(new URL(url), allow), /KW_ERR_FETCH_BLOCKED|names this machine|is loopback/, url);
  }
  assert.throws(() => new AllowList(['127.0.0.1']), /not ip:port/);
});
