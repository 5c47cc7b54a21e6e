import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { KowalskiError } from '../../core/index.js';
import { calendarSettings } from '../../engine/adapters/calendar/settings.js';

function refused(raw: Record<string, unknown>, key: string, message: RegExp, env: NodeJS.ProcessEnv = {}): void {
  assert.throws(() => calendarSettings(raw, env, 'cal'), (err: unknown) => {
    assert.ok(err instanceof KowalskiError);
    assert.equal(err.code, 'KW_ERR_ADAPTER_CONFIG');
    assert.equal(err.where?.key, `adapters.cal.${key}`, err.message);
    assert.match(err.message, message);
    return true;
  });
}

test('calendar settings: files ~/-expanded, URLs (webcal as https), CalDAV with the password from the environment, write off by default', () => {
  const s = calendarSettings({
    ics: ['~/cal/team.ics', 'webcal://example.com/h.ics'],
    caldav: { url: 'https://dav.example.com/', username: 'alice', password_env: 'CAL_PW', calendar: 'Work' },
    time_zone: 'Europe/Berlin',
  }, { CAL_PW: 'pw' }, 'cal');
  assert.deepEqual(s.ics, [
    { kind: 'file', path: path.join(os.homedir(), 'cal/team.ics'), shown: '~/cal/team.ics' },
    { kind: 'url', url: 'https://example.com/h.ics', shown: 'webcal://example.com/h.ics' },
  ]);
  assert.deepEqual(s.caldav, { url: 'https://dav.example.com/', username: 'alice', password: 'pw', calendar: 'Work' });
  assert.equal(s.write, false);
  assert.equal(s.timeZone, 'Europe/Berlin');
  assert.equal(calendarSettings({ ics: ['/a.ics'] }, {}, 'cal').timeZone, Intl.DateTimeFormat().resolvedOptions().timeZone);
});

test('bad calendar settings name the key; the password is never in the message', () => {
  refused({}, 'ics', /needs ics = \["<file or URL>", …\] or a \[adapters\.<name>\.caldav\] server/);
  refused({ ics: 'a.ics' }, 'ics', /must be a list/);
  refused({ ics: ['relative/team.ics'] }, 'ics[0]', /must be an absolute path or start with ~\//);
  refused({ ics: ['ftp://example.com/a.ics'] }, 'ics[0]', /must be an http:\/\/ or https:\/\/ URL/);
  refused({ ics: ['/a.ics'], write: 'yes' }, 'write', /must be true or false/);
  refused({ ics: ['/a.ics'], writes: true }, 'writes', /is not a calendar setting/);
  refused({ ics: ['/a.ics'], time_zone: 'Mars/Olympus' }, 'time_zone', /is not a time zone/);
  refused({ caldav: { url: 'https://d/', username: 'a' } }, 'caldav.password', /is required/);
  refused({ caldav: { url: 'https://d/', username: 'a', password_env: 'NOPE' } }, 'caldav.password_env', /\$NOPE, which is not set/);
  refused({ caldav: { url: 'https://d/', username: 'a', password: 'hunter2', colour: 'red' } }, 'caldav.colour', /is not a calendar setting/);
  assert.throws(() => calendarSettings({ caldav: { url: 'nope', username: 'a', password: 'hunter2' } }, {}, 'cal'), (err: unknown) => !(err as Error).message.includes('hunter2'));
});
