/**
 * The example plugin's adapter, `relay`: a channel that POSTs signed JSON messages to
 * kowalski and takes the answers at a URL of its own. kowalski mounts it at
 * `POST /adapters/plugin/<name>` for a config.toml section such as
 *
 *   [adapters.relay]
 *   type = "plugin"
 *   plugin = "hello"
 *   adapter = "relay"
 *   enabled = true
 *   secret_env = "RELAY_SECRET"                     # given to receive and send as options.secret
 *   reply_url = "https://relay.example.com/answers" # where send posts the answers
 *
 * `receive` runs in this plugin's process for each request: it checks the signature itself
 * (kowalski's route takes no token for it) and answers the messages it found; kowalski
 * records each one durably, drops a delivery it has seen, and runs the agent's turn.
 * `send` posts the agent's answer back with `kowalski.fetch`, which reaches only the hosts
 * the plugin was granted (`net`): without a grant for reply_url's host the answer is
 * refused (KW_ERR_PLUGIN_PERMISSION), and the adapter's status says so.
 *
 * The request: `X-Relay-Timestamp` (unix seconds), `X-Relay-Signature` (hex HMAC-SHA256,
 * keyed with the secret, of `<timestamp>.<body>`), and a JSON body
 * `{"id": "…", "text": "…", "conversation": "…", "from": "…"}`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

const TOLERANCE_SECS = 300;

function refused(message) {
  return { status: 401, body: { ok: false, error: message }, messages: [] };
}

export const relay = {
  async receive({ headers, body, options }) {
    if (typeof options.secret !== 'string' || options.secret === '') throw new Error('the adapter has no secret: set secret_env in its [adapters.<name>] section');
    const timestamp = headers['x-relay-timestamp'] ?? '';
    const signature = headers['x-relay-signature'] ?? '';
    if (!/^\d{1,12}$/.test(timestamp) || !/^[0-9a-f]{64}$/.test(signature)) return refused('X-Relay-Timestamp and X-Relay-Signature are required');
    const expected = createHmac('sha256', options.secret).update(`${timestamp}.${body}`).digest();
    if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) return refused('the signature does not match');
    if (Math.abs(Date.now() / 1000 - Number(timestamp)) > TOLERANCE_SECS) return refused('the timestamp is too old');
    let message;
    try {
      message = JSON.parse(body);
    } catch {
      return { status: 400, body: { ok: false, error: 'the body is not JSON' }, messages: [] };
    }
    if (typeof message?.id !== 'string' || typeof message.text !== 'string') return { status: 400, body: { ok: false, error: 'id and text are required' }, messages: [] };
    const conversation = typeof message.conversation === 'string' ? message.conversation : message.id;
    return {
      messages: [{
        deliveryId: message.id,
        conversation,
        from: typeof message.from === 'string' ? message.from : 'relay',
        text: message.text,
        replyTo: { conversation },
      }],
    };
  },

  async send({ deliveryId, text, replyTo, options }, kowalski) {
    if (typeof options.reply_url !== 'string') throw new Error('the adapter has no reply_url in its [adapters.<name>] section');
    const res = await kowalski.fetch(options.reply_url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ inReplyTo: deliveryId, conversation: replyTo.conversation, text }),
    });
    if (!res.ok) throw new Error(`the relay answered ${res.status}`);
  },
};
