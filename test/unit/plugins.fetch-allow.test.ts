/** Which hosts a plugin's `net` list lets its kowalski.fetch reach. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostAllowed } from '../../engine/plugins/runner/index.js';

test('a net entry matches its host in any case and spelling of the trailing dot; *.domain matches subdomains only', () => {
  const allowed = hostAllowed(['API.Example.com.', '*.weather.test']);
  assert.equal(allowed('api.example.com'), true);
  assert.equal(allowed('example.com'), false);
  assert.equal(allowed('evil-api.example.com'), false);
  assert.equal(allowed('eu.weather.test'), true);
  assert.equal(allowed('a.b.weather.test'), true);
  assert.equal(allowed('weather.test'), false);
  assert.equal(allowed('badweather.test'), false);
  assert.equal(hostAllowed([])('api.example.com'), false);
});
