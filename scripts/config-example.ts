/** `npm run config:example`: writes config.example.toml at the repository's root from the catalog of keys (engine/config/keys.ts). */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderConfigExample } from '../engine/index.js';

const file = fileURLToPath(new URL('../config.example.toml', import.meta.url));
fs.writeFileSync(file, renderConfigExample());
process.stdout.write(`wrote ${file}\n`);
