/** Open the operator app in the person's browser — never in CI, never without a display. */
import { spawn } from 'node:child_process';

export function canOpenBrowser(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): boolean {
  if (env.CI !== undefined && env.CI !== '' && env.CI !== 'false') return false;
  if (env.KOWALSKI_NO_OPEN !== undefined && env.KOWALSKI_NO_OPEN !== '') return false;
  if (platform === 'linux' || platform === 'freebsd' || platform === 'openbsd') {
    return (env.DISPLAY ?? '') !== '' || (env.WAYLAND_DISPLAY ?? '') !== '';
  }
  return platform === 'darwin' || platform === 'win32';
}

/** Best effort: a missing opener is not an error (the URL is printed anyway). */
export function openBrowser(url: string, platform: NodeJS.Platform = process.platform): void {
  const [cmd, args] = platform === 'darwin' ? ['open', [url]] : platform === 'win32' ? ['cmd', ['/c', 'start', '""', url]] : ['xdg-open', [url]];
  const child = spawn(cmd, args, { detached: true, stdio: 'ignore' });
  child.on('error', () => {});
  child.unref();
}
