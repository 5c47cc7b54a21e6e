/** A data folder with plugins in it: the example plugin copied under `plugins/local/`, npm-style packages under `plugins/node_modules/`. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const EXAMPLE_PLUGIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../examples/plugin-hello');

/** Copy examples/plugin-hello to `<home>/plugins/local/<folder>`, its `fs.read` set to `readDir`; returns the manifest's path. */
export function installExample(home: string, readDir: string, folder = 'hello'): string {
  const root = path.join(home, 'plugins', 'local', folder);
  fs.cpSync(EXAMPLE_PLUGIN, root, { recursive: true });
  const manifest = path.join(root, 'kowalski-plugin.toml');
  editManifest(manifest, 'fs.read = ["~/Documents"]', `fs.read = [${JSON.stringify(readDir)}]`);
  return manifest;
}

/** Install the example as an npm package named `name` listed in `<home>/plugins/package.json`. */
export function installExamplePackage(home: string, readDir: string, name: string): string {
  const root = path.join(home, 'plugins', 'node_modules', name);
  fs.cpSync(EXAMPLE_PLUGIN, root, { recursive: true });
  const manifest = path.join(root, 'kowalski-plugin.toml');
  editManifest(manifest, 'fs.read = ["~/Documents"]', `fs.read = [${JSON.stringify(readDir)}]`);
  fs.writeFileSync(path.join(home, 'plugins', 'package.json'), JSON.stringify({ private: true, dependencies: { [name]: 'file:somewhere' } }));
  return manifest;
}

export function editManifest(file: string, from: string, to: string): void {
  const text = fs.readFileSync(file, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} does not hold ${from}`);
  fs.writeFileSync(file, text.replace(from, to));
}
