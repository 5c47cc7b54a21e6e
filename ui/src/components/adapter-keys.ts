/** The keys Setup's adapter forms ask for, by type (each type's settings() in engine/adapters/), a secret only as an environment variable's name. */
import type { AdapterType } from '../types';

export interface AdapterKey { key: string; label: string; secret?: boolean; optional?: boolean; placeholder: string }

/** The keys each type needs (its settings() in engine/adapters/), and a useful optional one. */
export const ADAPTER_KEYS: Record<AdapterType, readonly AdapterKey[]> = {
  webhook: [
    { key: 'secret', label: 'Signing secret', secret: true, placeholder: 'KOWALSKI_WEBHOOK_SECRET' },
    { key: 'callback_url', label: 'Callback address (optional: where answers are posted)', optional: true, placeholder: 'https://example.com/answers' },
  ],
  slack: [
    { key: 'signing_secret', label: 'Signing secret', secret: true, placeholder: 'SLACK_SIGNING_SECRET' },
    { key: 'bot_token', label: 'Bot token', secret: true, placeholder: 'SLACK_BOT_TOKEN' },
  ],
  discord: [
    { key: 'public_key', label: 'Public key (hex)', placeholder: 'the application\'s public key' },
    { key: 'application_id', label: 'Application id', placeholder: '123456789012345678' },
  ],
  email: [
    { key: 'address', label: 'Address', placeholder: 'assistant@example.com' },
    { key: 'imap.host', label: 'IMAP server', placeholder: 'imap.example.com' },
    { key: 'imap.user', label: 'IMAP user', placeholder: 'assistant@example.com' },
    { key: 'imap.password', label: 'IMAP password', secret: true, placeholder: 'KOWALSKI_IMAP_PASSWORD' },
    { key: 'smtp.host', label: 'SMTP server', placeholder: 'smtp.example.com' },
  ],
  calendar: [
    { key: 'caldav.url', label: 'CalDAV address', placeholder: 'https://dav.example.com/calendars/me/' },
    { key: 'caldav.username', label: 'CalDAV user', placeholder: 'me' },
    { key: 'caldav.password', label: 'CalDAV password', secret: true, placeholder: 'KOWALSKI_CALDAV_PASSWORD' },
  ],
  plugin: [
    { key: 'plugin', label: 'Plugin (granted, as the Plugins screen lists it)', placeholder: 'hello' },
    { key: 'adapter', label: 'Its adapter (optional: default the name above)', optional: true, placeholder: 'relay' },
  ],
};
/** An environment variable's name. */
const ADAPTER_ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A key's field label: a secret is asked as the name of its environment variable. */
export const keyLabel = (k: AdapterKey): string => (k.secret === true ? `${k.label}: environment variable name` : k.label);

/** What is wrong with a key's value (trimmed), if anything; `kept`: a secret written in config.toml, which stays when the field is left empty. */
export function keyProblem(k: AdapterKey, value: string, kept = false): string | undefined {
  if (value === '' && k.optional !== true && !kept) return k.secret === true ? 'The name of the environment variable that holds it.' : 'Required.';
  if (value !== '' && k.secret === true && !ADAPTER_ENV_NAME.test(value)) return 'An environment variable\'s name: letters, digits and _ (not the secret itself).';
  return undefined;
}
