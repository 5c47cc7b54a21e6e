/** Whether plugins can be confined by bubblewrap here (the engine's own trial run), or by Node's permission model only. */
import { detectSandbox } from '../../engine/index.js';
import type { SandboxOptions } from '../../engine/index.js';
import { ok, warn } from './check.js';
import type { Check } from './check.js';

export async function checkPluginSandbox(options: SandboxOptions = {}): Promise<Check> {
  const sandbox = await detectSandbox(options);
  if (sandbox.kind === 'bwrap') return ok('plugin sandbox', `bubblewrap (${sandbox.bwrap}): each plugin runs in its own network and PID namespaces, with only its own paths mounted`);
  const detail = `plugins are confined by Node's permission model only: they can open sockets and send signals (${sandbox.reason})`;
  const fix = sandbox.cause !== 'failed'
    ? 'apt-get install bubblewrap (or your system\'s bubblewrap package), then restart kowalski serve'
    : 'make bubblewrap work for this user (unprivileged user namespaces must be allowed: sysctl kernel.unprivileged_userns_clone=1, or an AppArmor profile for bwrap), or apt-get install bubblewrap; then restart kowalski serve';
  return warn('plugin sandbox', detail, fix);
}
