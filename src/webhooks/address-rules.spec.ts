import { describe, expect, it } from '@jest/globals';
import { nonPublicKind, unparsableUrlReason } from './address-rules.js';

describe('nonPublicKind: the addresses a webhook may not reach', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'shared (CGNAT)'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['192.0.2.10', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fd00::1', 'private'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['2002:c0a8:0101::1', 'private'],
    ['2001::1', 'reserved'],
    ['localhost', 'invalid'],
  ])('%s is %s', (address, kind) => {
    expect(nonPublicKind(address)).toBe(kind);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])(
    '%s is public',
    (address) => {
      expect(nonPublicKind(address)).toBeUndefined();
    },
  );
});

describe('unparsableUrlReason: URLs of the webhook shape that the WHATWG URL parser refuses', () => {
  it.each([
    [
      'http://xn--localhost:8080/hook',
      'url host xn--localhost is not a valid internationalized domain name: xn--localhost does not decode',
    ],
    [
      'http://XN--LOCALHOST/',
      'url host XN--LOCALHOST is not a valid internationalized domain name: XN--LOCALHOST does not decode',
    ],
    [
      'https://a.xn--zz.example:443/',
      'url host a.xn--zz.example is not a valid internationalized domain name: xn--zz does not decode',
    ],
    ['http://[::1%25lo]:8080/hook', 'url host [::1%25lo] carries an IPv6 zone id, which a URL may not carry'],
    ['http://[fe80::1%eth0]/', 'url host [fe80::1%eth0] carries an IPv6 zone id, which a URL may not carry'],
    ['http://\u200b:8080/hook', 'url host \u200b is not a valid host name'],
    ['http://shop\u30029/', 'url host shop\u30029 is not a valid host name'],
  ])('%s: %s', (url, reason) => {
    expect(unparsableUrlReason(url)).toBe(reason);
  });

  it.each([
    'https://xn--ls8h.la/',
    'http://[::1]:8080/hook',
    'http://b\u00fccher.example/',
    'http://shop.example:0080/',
  ])('%s parses', (url) => {
    expect(unparsableUrlReason(url)).toBeUndefined();
  });
});
