/**
 * Trigger overlap decided for the cluster (issue 40, item 3): two nodes on one Postgres
 * store fire the same trigger at once, while its run is held at a gate. `skip` starts one
 * run across both nodes; `queue_one` keeps one firing waiting across both, and it starts
 * once when the run ends, however many nodes hear of the end.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import type { Engine, FireResult } from '../../engine/index.js';
import { openSyncPg } from '../../engine/store/pg/sync-pg.js';
import { cleanups } from '../../testkit/cleanup.js';
import { tempDir } from '../../testkit/tmp.js';
import { waitFor } from '../../testkit/wait.js';
import { writeHorde } from '../support/engine.js';
import { freshPostgresUrl, pgTestEngine } from '../support/pg-engine.js';

interface Cluster {
  nodes: [Engine, Engine];
  url: string;
  gate: string;
}

/** Two nodes with the horde `held` (one step that waits for the gate file) and its trigger `in`, switched on, firing as a server's do. */
async function twoNodes(t: TestContext, trigger: string): Promise<Cluster> {
  const dir = tempDir(t);
  const url = await freshPostgresUrl();
  const gate = path.join(dir, 'gate');
  const folder = writeHorde(path.join(dir, 'h'), `id = "held"\npipeline = ["wait"]\nconfirm_commands = false\n[[triggers]]\nname = "in"\n${trigger}\nenabled = true`, {
    wait: `kind = "verify"\nverify_command = "while [ ! -f ${gate} ]; do sleep 0.05; done"`,
  });
  const a = await pgTestEngine(t, { url });
  const b = await pgTestEngine(t, { url });
  for (const e of [a.engine, b.engine]) fs.cpSync(folder, path.join(e.paths.hordes, 'held'), { recursive: true });
  await Promise.all([a.engine.triggers.start(), b.engine.triggers.start()]);
  return { nodes: [a.engine, b.engine], url, gate };
}

/** Six deliveries, each with its own id, three to each node, all at once. */
async function deliverSix(nodes: readonly Engine[], round: string): Promise<FireResult[]> {
  return Promise.all(Array.from({ length: 6 }, async (_, i) => {
    const e = nodes[i % 2]!;
    return e.triggers.webhook(await e.triggers.webhookTarget('held', 'in'), { id: `${round}-${i}`, payload: '{}', contentType: 'application/json' });
  }));
}

const outcomes = (results: readonly FireResult[]): string[] => results.map((r) => r.outcome).sort();

/** The trigger's firings as the store holds them: outcome → how many. */
function firings(t: TestContext, url: string): Record<string, number> {
  const pg = openSyncPg(url);
  cleanups(t)(() => pg.close());
  const rows = pg.all<{ outcome: string; n: number }>("SELECT outcome, count(*)::int AS n FROM trigger_firings WHERE horde_id = 'held' GROUP BY outcome");
  return Object.fromEntries(rows.map((r) => [r.outcome, r.n]));
}

describe('trigger overlap across the nodes of a Postgres store', () => {
  test('skip: a webhook fired on two nodes at once starts one run; the other firings are skipped naming it', async (t) => {
    const { nodes: [a, b], url, gate } = await twoNodes(t, 'kind = "webhook"\noverlap = "skip"');
    const results = await deliverSix([a, b], 'one');
    assert.deepEqual(outcomes(results), ['skipped', 'skipped', 'skipped', 'skipped', 'skipped', 'started'], JSON.stringify(results));
    const runId = results.flatMap((r) => (r.outcome === 'started' ? [r.runId] : []))[0]!;
    for (const r of results) if (r.outcome === 'skipped') assert.match(r.detail, new RegExp(`run ${runId} of this trigger has not finished`));
    assert.equal(a.listRuns({}).length, 1, 'one run in the shared store');
    assert.equal((await b.triggers.list()).find((v) => v.name === 'in')?.active, 1, 'each node counts the run the other started');
    fs.writeFileSync(gate, '');
    await waitFor(() => a.getRun(runId).run.state === 'succeeded', 'the run finished', 30_000);
    // Once it has finished, the next firing starts a run again, on either node.
    const next = await b.triggers.webhook(await b.triggers.webhookTarget('held', 'in'), { id: 'after', payload: '{}', contentType: 'application/json' });
    assert.equal(next.outcome, 'started');
    assert.deepEqual(firings(t, url), { started: 2, skipped: 5 });
  });

  test('skip: a cron trigger every second, on two nodes, starts one run while that run is held', async (t) => {
    const { nodes, url, gate } = await twoNodes(t, 'kind = "cron"\nschedule = "* * * * * *"\ntimezone = "UTC"\noverlap = "skip"');
    await waitFor(() => (firings(t, url).skipped ?? 0) >= 4, 'four instants fired after the first', 30_000);
    await Promise.all(nodes.map((e) => e.triggers.close()));
    const runs = nodes[0].listRuns({});
    assert.equal(runs.length, 1, `one run however many instants either node fired: ${JSON.stringify(firings(t, url))}`);
    assert.equal(firings(t, url).started, 1);
    fs.writeFileSync(gate, '');
    await waitFor(() => nodes[0].getRun(runs[0]!.id).run.state === 'succeeded', 'the run finished', 30_000);
  });

  test('queue_one: firings on two nodes at once keep one waiting across both; it starts once, when the run ends', async (t) => {
    const { nodes: [a, b], url, gate } = await twoNodes(t, 'kind = "webhook"\noverlap = "queue_one"');
    const results = await deliverSix([a, b], 'one');
    assert.deepEqual(outcomes(results), ['queued', 'skipped', 'skipped', 'skipped', 'skipped', 'started'], JSON.stringify(results));
    assert.deepEqual(firings(t, url), { started: 1, queued: 1, skipped: 4 });
    // Both nodes hear the run end; one of them starts the waiting firing, once.
    fs.writeFileSync(gate, '');
    await waitFor(() => a.listRuns({}).length === 2 && a.listRuns({}).every((r) => r.state === 'succeeded'), 'the waiting firing ran too', 30_000);
    // Time for the slower node to hear of the ends (its follower polls each second) and find nothing left to start.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(b.listRuns({}).length, 2, 'the waiting firing started one run');
    assert.deepEqual(firings(t, url), { started: 2, skipped: 4 });
  });

  test("a firing waits while another session holds the trigger's lock: it goes on when it is let go, and is refused with KW_ERR_TRIGGER_ELSEWHERE after 10 s", async (t) => {
    const { nodes: [a], url, gate } = await twoNodes(t, 'kind = "webhook"\noverlap = "skip"');
    fs.writeFileSync(gate, '');
    // The trigger's lock as a node holds it (class "kwtr", the hash of `<horde>/<trigger>`), taken by another session.
    const other = openSyncPg(url);
    cleanups(t)(() => other.close());
    const hold = (): void => void other.get("SELECT pg_advisory_lock(x'6b777472'::int, hashtext('held/in'))");
    const release = (): void => void other.get("SELECT pg_advisory_unlock(x'6b777472'::int, hashtext('held/in'))");
    const deliver = async (id: string): Promise<FireResult> => a.triggers.webhook(await a.triggers.webhookTarget('held', 'in'), { id, payload: '{}', contentType: 'application/json' });

    hold();
    let settled = false;
    const waiting = deliver('waits').finally(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(settled, false, 'the firing waits for the lock');
    assert.equal(a.listRuns({}).length, 0);
    release();
    assert.equal((await waiting).outcome, 'started');
    await waitFor(() => a.listRuns({}).every((r) => r.state === 'succeeded'), 'the run finished');

    hold();
    const t0 = performance.now();
    await assert.rejects(deliver('refused'), { code: 'KW_ERR_TRIGGER_ELSEWHERE' });
    assert.ok(performance.now() - t0 >= 9_000, 'after waiting its 10 s');
    release();
    assert.deepEqual(firings(t, url), { started: 1 }, 'nothing was recorded for the refused firing');
    assert.equal((await deliver('refused')).outcome, 'started', 'and its delivery, sent again, is new');
  });
});
