/** The operator app's static files (built by esbuild into ui/dist), with a strict CSP. */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';

const FILES: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/index.html': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
  // The workbook parser: the app imports it only when it shows a workbook (see ui/build.mjs).
  '/xlsx-reader.js': { file: 'xlsx-reader.js', type: 'text/javascript; charset=utf-8' },
  '/favicon.svg': { file: 'favicon.svg', type: 'image/svg+xml' },
};

export const UI_PATHS: ReadonlySet<string> = new Set(Object.keys(FILES));

// worker-src blob:: the workbook parser unzips big sheets in a worker it starts from a blob URL (only our own scripts can make one).
const CSP = "default-src 'self'; script-src 'self'; worker-src 'self' blob:; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

export function uiRoutes(app: FastifyInstance, uiDir: string): void {
  for (const [route, { file, type }] of Object.entries(FILES)) {
    app.get(route, async (_req, reply) => {
      let body: Buffer;
      try {
        body = await fs.promises.readFile(path.join(uiDir, file));
      } catch {
        if (file !== 'index.html') return reply.code(404).send({ error: { code: 'KW_ERR_NOT_FOUND', message: `${file} is not built` } });
        return reply.type('text/plain; charset=utf-8').send(`The operator app is not built (no ${path.join(uiDir, file)}). Run \`npm run build\`; the API under /api/ works meanwhile.\n`);
      }
      return reply.header('content-security-policy', CSP).header('cache-control', 'no-cache').type(type).send(body);
    });
  }
}
