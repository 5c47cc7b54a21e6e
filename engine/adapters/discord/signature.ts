/**
 * Discord's interaction signature: `X-Signature-Ed25519` (hex) is an Ed25519 signature,
 * by the application's key, of `X-Signature-Timestamp` followed by the raw body; the public
 * key (hex, from the Developer Portal) is the settings' `public_key`. Any failure — a
 * header missing, not hex, of the wrong length, a signature that does not verify, a
 * timestamp more than 300 s away — is a refusal (Discord sends bad signatures on purpose
 * and expects 401). The headers, their forms and the window are http-inbound.ts's
 * `verifySigned`; this is the scheme, with node:crypto only.
 */
import crypto from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import type { SignatureVerdict, SignedRequest } from '../http-inbound.js';
import { verifySigned } from '../http-inbound.js';

/** DER prefix of an Ed25519 SubjectPublicKeyInfo: the 32 key bytes follow it. */
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** The key object of a 64-hex-digit Ed25519 public key, or why it is not one. */
export function discordPublicKey(hex: string): KeyObject | string {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return `must be the application's public key: 64 hex digits (got ${hex.length} characters${/^[0-9a-fA-F]*$/.test(hex) ? '' : ', not all hex'})`;
  try {
    return crypto.createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, Buffer.from(hex, 'hex')]), format: 'der', type: 'spki' });
  } catch {
    return 'is not an Ed25519 public key';
  }
}

export interface VerifyDiscordInput extends SignedRequest {
  publicKey: KeyObject;
}

export function verifyDiscord(input: VerifyDiscordInput): SignatureVerdict {
  return verifySigned({
    signatureHeader: 'X-Signature-Ed25519',
    timestampHeader: 'X-Signature-Timestamp',
    signatureForm: /^[0-9a-fA-F]{128}$/,
    signatureFormWords: '128 hex digits (an Ed25519 signature)',
    refusal(signature, timestamp, rawBody) {
      let valid: boolean;
      try {
        valid = crypto.verify(null, Buffer.concat([Buffer.from(timestamp, 'utf8'), rawBody]), input.publicKey, Buffer.from(signature, 'hex'));
      } catch {
        valid = false;
      }
      return valid ? undefined : 'X-Signature-Ed25519 does not verify with the public key over the timestamp and the body';
    },
  }, input);
}
