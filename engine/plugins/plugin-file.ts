/**
 * Reading a file discovery needs (a `kowalski-plugin.toml`, a package.json) that anyone who
 * can write under `<data>/plugins/` put there: opened without blocking (a FIFO would hold the
 * open, and with it the start of `kowalski serve`, forever), checked on the opened descriptor
 * (no stat-then-open race) to be a regular file of at most `maxBytes`, and read no further than
 * that — so a FIFO, a device, a link to one (`/dev/zero`) or a huge file is refused at once,
 * naming the file (KW_ERR_PLUGIN_MANIFEST).
 */
import fs from 'node:fs/promises';
import { KowalskiError } from '../../core/index.js';

function kindOf(stat: { isDirectory(): boolean; isFIFO(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSocket(): boolean }): string {
  if (stat.isDirectory()) return 'a folder';
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** The file's text; throws KW_ERR_PLUGIN_MANIFEST when it is not a regular file or is larger than `maxBytes`, and the open's error (ENOENT…) as it is. */
export async function readPluginFile(file: string, maxBytes: number): Promise<string> {
  let fh: fs.FileHandle;
  try {
    fh = await fs.open(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOCTTY);
  } catch (err) {
    // A socket cannot be opened at all.
    if ((err as NodeJS.ErrnoException).code === 'ENXIO') throw new KowalskiError('KW_ERR_PLUGIN_MANIFEST', `${file}: is a socket, not a regular file; it is not read`);
    throw err;
  }
  try {
    const stat = await fh.stat();
    if (!stat.isFile()) throw new KowalskiError('KW_ERR_PLUGIN_MANIFEST', `${file}: is ${kindOf(stat)}, not a regular file; it is not read`);
    const tooBig = (): KowalskiError => new KowalskiError('KW_ERR_PLUGIN_MANIFEST', `${file}: is larger than ${maxBytes} bytes, the most read of it; it is not read`);
    if (stat.size > maxBytes) throw tooBig();
    // It may grow after the fstat: read one byte past the bound to know.
    const buf = Buffer.alloc(maxBytes + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, length, buf.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > maxBytes) throw tooBig();
    }
    return buf.toString('utf8', 0, length);
  } finally {
    await fh.close();
  }
}
