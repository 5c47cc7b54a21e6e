/**
 * Staged reviews for the API: a reviewed bundle is kept (its report in memory, its checked
 * files in their scratch folder) under a random review id for 10 minutes, so an install
 * uses exactly the files that were checked and shown, with no second upload. Installing,
 * dropping or expiry removes the scratch folder. Bounded: past `maxStaged` reviews, the
 * oldest is dropped. One staging per server; nothing here is module-level.
 */
import { randomBytes } from 'node:crypto';
import { KowalskiError } from '../core/index.js';
import { installBundle } from './install.js';
import type { InstallOptions, Installed } from './install.js';
import { discardBundle } from './review.js';
import type { StagedBundle } from './review.js';

export interface StagingOptions {
  /** How long a review is kept, in ms (default 600,000: 10 minutes). */
  ttlMs?: number;
  /** Reviews kept at once (default 16); adding one more drops the oldest. */
  maxStaged?: number;
  /** Default: Date.now. */
  now?: () => number;
}

/** A review id: 32 hex digits. */
export const REVIEW_ID_PATTERN = '^[0-9a-f]{32}$';

interface Held {
  staged: StagedBundle;
  expiresAt: number;
  timer: NodeJS.Timeout;
}

export class BundleStaging {
  private readonly held = new Map<string, Held>();
  private readonly ttlMs: number;
  private readonly maxStaged: number;
  private readonly now: () => number;

  constructor(options: StagingOptions = {}) {
    this.ttlMs = options.ttlMs ?? 600_000;
    this.maxStaged = options.maxStaged ?? 16;
    this.now = options.now ?? Date.now;
  }

  /** Keep a reviewed bundle; the staging now owns its scratch folder. */
  async add(staged: StagedBundle): Promise<{ reviewId: string; expiresAt: number }> {
    while (this.held.size >= this.maxStaged) {
      const oldest = this.held.keys().next().value as string;
      await this.drop(oldest);
    }
    const reviewId = randomBytes(16).toString('hex');
    const expiresAt = this.now() + this.ttlMs;
    const timer = setTimeout(() => void this.drop(reviewId).catch(() => undefined), this.ttlMs);
    timer.unref();
    this.held.set(reviewId, { staged, expiresAt, timer });
    return { reviewId, expiresAt };
  }

  /** Reviews kept now. */
  get size(): number {
    return this.held.size;
  }

  /** Install a kept review; on success it is gone, on failure (say, the id is taken) it stays for another try. */
  async install(reviewId: string, options: InstallOptions = {}): Promise<Installed> {
    const held = await this.take(reviewId);
    try {
      const installed = await installBundle(held.staged, options);
      clearTimeout(held.timer);
      await discardBundle(held.staged);
      return installed;
    } catch (err) {
      if (this.now() < held.expiresAt) this.held.set(reviewId, held);
      else await discardBundle(held.staged);
      throw err;
    }
  }

  /** Forget a review and remove its files. KW_ERR_NOT_FOUND when unknown or expired. */
  async drop(reviewId: string): Promise<void> {
    const held = await this.take(reviewId);
    clearTimeout(held.timer);
    await discardBundle(held.staged);
  }

  /** Drop every review (the server is closing). */
  async close(): Promise<void> {
    for (const id of [...this.held.keys()]) await this.drop(id).catch(() => undefined);
  }

  /** Out of the map while in use, so two installs of one review cannot race. */
  private async take(reviewId: string): Promise<Held> {
    const held = this.held.get(reviewId);
    if (held === undefined) throw new KowalskiError('KW_ERR_NOT_FOUND', `no staged bundle ${reviewId}: it was installed, dropped, or expired (reviews are kept ${Math.round(this.ttlMs / 60_000)} minutes); upload it again`);
    this.held.delete(reviewId);
    if (this.now() >= held.expiresAt) {
      clearTimeout(held.timer);
      await discardBundle(held.staged);
      throw new KowalskiError('KW_ERR_NOT_FOUND', `the staged bundle ${reviewId} expired; upload it again`);
    }
    return held;
  }
}
